package rounds

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

var flakyT0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// A signature that failed and then passed on a re-run of the same commit is flaky; the evidence
// names where, and counts the failures among the newest runs.
func TestASignatureThatPassedOnARerunOfTheSameCommitIsFlaky(t *testing.T) {
	sig := prstatus.FailureSignature{Check: "test", Test: "TestRetry", Error: "timeout"}
	var m FlakyMemory
	m.Failed("acme/widgets", sig, 41, "c41", 1, flakyT0)
	assert.False(t, m.Evidence("acme/widgets", sig).Flaky, "one failure is not flaky")
	assert.False(t, m.Passed("acme/widgets", 41, "c41", []string{"lint"}, flakyT0), "another check passing says nothing")
	assert.False(t, m.Passed("acme/widgets", 41, "c42", []string{"test"}, flakyT0), "another commit passing says nothing")
	require.True(t, m.Passed("acme/widgets", 41, "c41", []string{"test"}, flakyT0.Add(time.Minute)))
	assert.False(t, m.Passed("acme/widgets", 41, "c41", []string{"test"}, flakyT0.Add(2*time.Minute)), "once")

	m.Failed("acme/widgets", sig, 7, "c7", 2, flakyT0.Add(time.Hour))
	m.Failed("acme/widgets", sig, 7, "c7", 2, flakyT0.Add(time.Hour)) // the same job again
	m.Failed("acme/widgets", sig, 7, "c7", 3, flakyT0.Add(2*time.Hour))
	m.Passed("acme/widgets", 7, "c7", []string{"test"}, flakyT0.Add(3*time.Hour))
	e := m.Evidence("acme/widgets", sig)
	assert.Equal(t, Evidence{Flaky: true, PassedOnRerun: []int{7, 41}, Failed: 3, Recent: 5}, e)
	assert.Equal(t, "passed on a re-run of the same commit on #41 and on this PR; failed 3 of the last 5 runs", e.Sentence(7))
	assert.Equal(t, "passed on a re-run of the same commit on #7 and #41; failed 3 of the last 5 runs", e.Sentence(9))

	assert.False(t, m.Evidence("acme/other", sig).Flaky, "per repository")
	assert.False(t, m.Evidence("acme/widgets", prstatus.FailureSignature{Check: "test", Test: "TestOther"}).Flaky)
	assert.Empty(t, Evidence{}.Sentence(7))
}

// The memory stays bounded: runs per signature, signatures per repository, repositories.
func TestTheFlakyMemoryIsBounded(t *testing.T) {
	var m FlakyMemory
	for i := range maxRunsPerSignature + 5 {
		m.Failed("a/r", prstatus.FailureSignature{Check: "test"}, 1, "c", int64(i+1), flakyT0.Add(time.Duration(i)*time.Minute))
	}
	assert.Len(t, m.Repos["a/r"].Signatures[prstatus.FailureSignature{Check: "test"}.Key()].Runs, maxRunsPerSignature)
	for i := range maxSignaturesInRepo + 3 {
		m.Failed("a/r", prstatus.FailureSignature{Check: fmt.Sprintf("c%d", i)}, 1, "c", 1, flakyT0.Add(time.Duration(i)*time.Hour))
	}
	assert.Len(t, m.Repos["a/r"].Signatures, maxSignaturesInRepo)
	for i := range maxFlakyRepos + 2 {
		m.Failed(fmt.Sprintf("o/r%d", i), prstatus.FailureSignature{Check: "x"}, 1, "c", 1, flakyT0.Add(time.Duration(i+1000)*time.Hour))
	}
	assert.Len(t, m.Repos, maxFlakyRepos)
	assert.NotContains(t, m.Repos, "a/r", "the repository seen longest ago goes first")
}
