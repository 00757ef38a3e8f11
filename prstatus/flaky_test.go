package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A failure's signature is its check, first failing test and error line, the same across runs
// that differ only in durations, numbers, hex ids and directories.
func TestAFailuresSignatureIgnoresRunToRunNoise(t *testing.T) {
	tests := []struct {
		name, tail string
		want       FailureSignature
	}{
		{"go test", "=== RUN TestRetry\n--- FAIL: TestRetry (1.02s)\n    retry_test.go:12: timeout after 1.5s waiting for 10.0.0.7:8080\nFAIL",
			FailureSignature{Check: "test", Test: "TestRetry", TestFile: "retry_test.go", Error: "timeout after <dur> waiting for <n>.<n>.<n>.<n>:<n>"}},
		{"go subtest, another run", "--- FAIL: TestRetry/slow (0.31s)\n    /home/runner/work/w/pkg/retry_test.go:40: got 3 want 4 (id deadbeef99)\n",
			FailureSignature{Check: "test", Test: "TestRetry/slow", TestFile: "/home/runner/work/w/pkg/retry_test.go", Error: "got <n> want <n> (id <hex>)"}},
		{"pytest", "tests/test_api.py::test_get PASSED\nFAILED tests/test_api.py::test_post - AssertionError: 500 != 201\n",
			FailureSignature{Check: "test", Test: "test_post", TestFile: "tests/test_api.py", Error: "FAILED test_api.py::test_post - AssertionError: <n> != <n>"}},
		{"no test named", "Step 3/7\nError: Process completed with exit code 2.\n",
			FailureSignature{Check: "test", Error: "Error: Process completed with exit code <n>."}},
		{"empty", "", FailureSignature{Check: "test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SignatureOf("test", tt.tail))
		})
	}
	a := SignatureOf("test", "--- FAIL: TestRetry (1.02s)\n    retry_test.go:12: timeout after 1.5s at 0x7ffd3a2c\n")
	b := SignatureOf("test", "--- FAIL: TestRetry (0.98s)\n    retry_test.go:12: timeout after 2s at 0x7ffe11aa\n")
	assert.Equal(t, a.Key(), b.Key(), "two runs of one failure")
	c := SignatureOf("lint", "--- FAIL: TestRetry (0.98s)\n    retry_test.go:12: timeout after 2s\n")
	assert.NotEqual(t, a.Key(), c.Key(), "another check")
}

// A failure in a test the pull request changes is not cleared as flaky: the changed files are
// matched against the log's path from either end, and a log that names no file clears nothing.
func TestAFlakyTestThePullRequestChangesIsTouched(t *testing.T) {
	tests := []struct {
		file    string
		changed []string
		want    bool
	}{
		{"/home/runner/work/w/w/pkg/retry_test.go", []string{"pkg/retry_test.go"}, true},
		{"retry_test.go", []string{"pkg/retry_test.go"}, true},
		{"pkg/retry_test.go", []string{"pkg/retry.go", "README.md"}, false},
		{"/home/runner/work/w/w/pkg/retry_test.go", []string{"other/retry_test.go.orig"}, false},
		{"", []string{"README.md"}, true},
		{"tests/test_api.py", nil, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, FailureSignature{Check: "test", TestFile: tt.file}.TouchedBy(tt.changed), "%s in %v", tt.file, tt.changed)
	}
}
