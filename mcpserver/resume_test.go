package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// pr_monitor_start's snapshot stands in for the first poll only while nothing but ready happened
// since: once the agent pushed or the server wrote on GitHub, it shows a PR that no longer is.
func TestTheStartSnapshotIsNotReusedAfterTheMonitorMoved(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 300 * time.Millisecond }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestX"})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "investigate_ci_failure", act.Task)
	act = h.next("investigation_complete", "", map[string]any{"findings": "TestX is wrong", "suggested_fix": "fix TestX", "issue_type": "code"})
	require.Equal(t, "ci_results", string(act.Question.ID))

	out := h.start() // the agent starts again (a new session): this snapshot shows the failure
	require.True(t, out.Resumed)
	act = h.next("user_chose", "apply_fix", nil)
	require.Equal(t, "apply_fix", act.Task)
	h.apply(githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "fix TestX"}}}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"})
	act = h.next("push_completed", "", nil)
	assert.Equal(t, "polling", act.Action, "the failure on the old head is gone; got %s %s", act.Task, act.Message)
}
