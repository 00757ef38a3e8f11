package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// A request for changes while the merge question waits supersedes the question: the agent's next
// ready gets the refine task, not a choice that no longer holds.
func TestARequestForChangesSupersedesTheWaitingMergeQuestion(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 2 * time.Second }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(githubfake.User("carol"), "lgtm"))
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "ready_to_merge", string(act.Question.ID))

	h.fake.Advance(time.Minute)
	h.apply(githubfake.RequestChanges(githubfake.User("bob"), "Not yet."))
	deadline := time.Now().Add(time.Minute)
	for act.Action == "ask_user" && time.Now().Before(deadline) {
		act = h.next("ready", "", nil) // the watcher reads the pull request meanwhile
	}
	assert.Equal(t, "execute", act.Action, "%+v", act)
	assert.Equal(t, "refine", act.Task)
	assert.Empty(t, h.fake.Merges())
}
