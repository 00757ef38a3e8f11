package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server started without a token says so on stderr at once, naming where it looked, and starts
// all the same (the agent reads the error from the tools that need GitHub); with a token, or with
// gh signed in, it says nothing of the kind.
func TestServeWithoutATokenSaysSoAtStart(t *testing.T) {
	signedIn := func(args []string) ([]byte, error) { return []byte(testToken + "\n"), nil }
	tests := []struct {
		name string
		te   *testEnv
		args []string
		warn []string // "" none
	}{
		{"no token anywhere", &testEnv{}, nil,
			[]string{"level=WARN", "no GitHub token: the server starts", `looked_in="GITHUB_TOKEN, GH_TOKEN, gh auth token --hostname github.com"`, "gh is not installed"}},
		{"no token, an enterprise server", &testEnv{}, []string{"--github-url", "https://ghe.example.com/api/v3"},
			[]string{"gh auth token --hostname ghe.example.com"}},
		{"GITHUB_TOKEN", withToken(), nil, nil},
		{"gh signed in", &testEnv{gh: signedIn}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, tt.te, append([]string{"serve", "--state-dir", t.TempDir()}, tt.args...)...)
			require.Equal(t, exitOK, res.code, "the server starts (and ends with its input): %s", res.stderr)
			assert.Empty(t, res.stdout, "stdout is the protocol's")
			assert.NotContains(t, res.stderr, testToken)
			if tt.warn == nil {
				assert.NotContains(t, res.stderr, "GitHub token")
				return
			}
			assert.Equal(t, 1, strings.Count(res.stderr, "no GitHub token:"), res.stderr)
			for _, w := range tt.warn {
				assert.Contains(t, res.stderr, w)
			}
		})
	}
}
