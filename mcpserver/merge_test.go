package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// When the user chooses to merge, the server re-reads the pull request and merges only what the
// user was shown; a change request submitted after the question was asked comes back to the user.
func TestTheMergeReReadsThePullRequestAndAsksAgainWhenItChanged(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	// Each call returns as soon as the machine moves; the deadline only has to leave room for the
	// re-read and the merge on a loaded machine (work cut by it would wait for the next call).
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 5 * time.Second }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(githubfake.User("carol"), "lgtm"))
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "ready_to_merge", string(act.Question.ID))

	h.fake.Advance(time.Minute)
	h.apply(githubfake.RequestChanges(githubfake.User("bob"), "Not yet."))
	act = h.next("user_chose", "merge", nil)
	require.Equal(t, "ask_user", act.Action, "%+v", act)
	assert.Equal(t, "ready_to_merge", string(act.Question.ID))
	assert.Contains(t, act.Question.Text, "bob requested changes")
	assert.Empty(t, h.fake.Merges(), "nothing merged over a request the user never saw")

	act = h.next("user_chose", "merge", nil) // seen now: the user's call
	assert.Equal(t, "merged", act.Action, "%+v", act)
	require.Len(t, h.fake.Merges(), 1)
}
