package mcpserver

import (
	"encoding/json"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// pr_monitor_start's snapshot stands in for the first poll only while nothing but ready happened
// since: once the agent pushed or the server wrote on GitHub, it shows a PR that no longer is.
func TestTheStartSnapshotIsNotReusedAfterTheMonitorMoved(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 300 * time.Millisecond }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestX"})
	h.start()
	act := h.next("ready", "", nil)
	// A loaded machine (-race, parallel tests) may need more than one 300 ms call to read the logs.
	for i := 0; act.Action == "polling" && i < 20; i++ {
		act = h.next("ready", "", nil)
	}
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

// A client that retries the multi-round-trip call whose answer the server already took (it died
// inside the call) gets what that answer led to, not "no longer open".
func TestARetriedElicitationAnswerReturnsTheTaskItEntered(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", user: choose(pickValue("rebase"))})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "rebase", act.Task)
	h.mu.Lock()
	require.Len(t, h.elicited, 1)
	seq, ok := h.elicited[0].Meta["prmonitor/seq"].(float64)
	h.mu.Unlock()
	require.True(t, ok)

	token, err := h.srv.seal.Seal(driver.RequestState{Monitor: "acme/widgets#7", Kind: driver.InputElicit, Seq: int64(seq), Rounds: 1})
	require.NoError(t, err)
	res, err := h.session.CallTool(t.Context(), &sdk.CallToolParams{Name: "pr_monitor_next_step",
		Arguments:    map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"},
		RequestState: token, InputResponses: sdk.InputResponseMap{"answer": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": "rebase"}}}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var again contract.ActionOutput
	require.NoError(t, json.Unmarshal(raw, &again))
	assert.Equal(t, "rebase", again.Task)
	h.mu.Lock()
	assert.Len(t, h.elicited, 1, "the user is not asked again")
	h.mu.Unlock()
}

// An agent that starts again (a crashed agent, a new session) while a task is in progress gets the
// task back on its next ready, as after a server restart; an agent that already has it and sends
// ready mid-task is asked what happened, as before.
func TestAReadyAfterStartingAgainGetsTheTaskInProgressBack(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	require.Equal(t, "ask_user", h.next("ready", "", nil).Action)
	task := h.next("user_chose", "rebase", nil)
	require.Equal(t, "rebase", task.Task)

	assert.Equal(t, "recovery", string(h.next("ready", "", nil).Question.ID), "the agent had the task: ready mid-task asks")
	assert.Equal(t, "rebase", h.next("user_chose", "back_to_task", nil).Task)

	out := h.start()
	require.NotNil(t, out.Pending)
	assert.Equal(t, "rebase", out.Pending.Task)
	again := h.next("ready", "", nil)
	assert.Equal(t, "execute", again.Action, "%+v", again)
	assert.Equal(t, "rebase", again.Task)
}
