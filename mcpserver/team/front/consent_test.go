package front_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/prmonitor/prmonitor/mcpserver/team/front"
)

// Consent over HTTP (docs/security.md, "Consent"): any holder of the user's token opens a session
// and declares what it likes, so what a session declares never decides whose an answer is. The
// agent's merge is the user's, relayed, only for a question a form was put for in a host of the
// user that refused or failed it, in the same run of the monitor.

// failForm is a host that cannot show a form (it fails every one).
func failForm(*sdk.ElicitParams) *sdk.ElicitResult { return nil }

// openQuestion is the seq of the question monitor acme/widgets#7 waits on, as a status shows it.
func openQuestion(t *testing.T, a *agent) any {
	t.Helper()
	st := a.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"})
	require.False(t, st.isError, st.text)
	monitors, _ := st.out["monitors"].([]any)
	require.Len(t, monitors, 1)
	q, _ := monitors[0].(map[string]any)["pending"].(map[string]any)["question"].(map[string]any)
	require.NotNil(t, q, "the question is open: %v", st.out)
	return q["seq"]
}

func TestOverHTTPASessionThatDeclaresNoFormsCannotMergeForTheUser(t *testing.T) {
	tm := newTeam(t)
	tm.ready()
	held := make(chan struct{})
	shown := make(chan struct{}, 1)
	alice := tm.agent("alice", agentOptions{protocol: "2025-11-25", answer: func(*sdk.ElicitParams) *sdk.ElicitResult {
		shown <- struct{}{}
		<-held // the user has not answered yet
		return &sdk.ElicitResult{Action: "cancel"}
	}})
	other := tm.agent("alice", agentOptions{protocol: "2026-07-28"}) // the same token, no forms declared
	started := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, started.isError, started.text)
	waiting := alice.callLater("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	<-shown // the user's host holds the question

	r := other.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge",
		"question_seq": openQuestion(t, other)})
	assert.True(t, r.isError, "%v", r.out)
	assert.Contains(t, r.text, "refused, nothing changed")
	r = other.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge"})
	assert.True(t, r.isError, "without question_seq too: %v", r.out)
	assert.Empty(t, tm.fake.Merges(), "nothing merged on a session's word about itself")

	r = other.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	require.False(t, r.isError, r.text)
	assert.Equal(t, "ask_user", r.str("action"))
	assert.Contains(t, r.str("message"), "only the user's own pick in a form", "the agent is told what it cannot choose")
	close(held)
	<-waiting
	assert.Empty(t, tm.fake.Merges())
}

func TestOverHTTPAQuestionAFormFailedForIsRelayedButOnlyInItsOwnRun(t *testing.T) {
	tm := newTeam(t)
	tm.ready()
	failing := tm.agent("alice", agentOptions{protocol: "2025-11-25", answer: failForm})
	other := tm.agent("alice", agentOptions{protocol: "2026-07-28"})
	started := failing.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, started.isError, started.text)
	r := failing.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	require.False(t, r.isError, r.text)
	require.Equal(t, "ask_user", r.str("action"), "%v", r.out)
	assert.Contains(t, r.str("message"), "could not show this question")
	seq := r.out["question"].(map[string]any)["seq"]

	// Stopped and started again: the new run asks its question with the same seq.
	stopped := failing.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#7"})
	require.False(t, stopped.isError, stopped.text)
	require.Eventually(t, func() bool {
		d, err := tm.c.DescribeWorkflow(context.Background(), "acme/widgets#7", "")
		return err == nil && d.Status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}, time.Minute, 100*time.Millisecond, "the stopped run ends")
	started = failing.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, started.isError, started.text)
	require.Equal(t, seq, openQuestion(t, other), "the new run numbers its questions from 1 again")
	r = other.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge", "question_seq": seq})
	assert.True(t, r.isError, "the old run's failed form does not make the new run's question relayable: %v", r.out)
	assert.Contains(t, r.text, "refused, nothing changed")
	assert.Empty(t, tm.fake.Merges())

	shows := tm.agent("alice", agentOptions{protocol: "2025-11-25", answer: choose("wait_for_approver")})
	r = shows.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	require.False(t, r.isError, r.text)
	assert.Equal(t, 1, shows.formCount(), "the new run's question is put to the user's host in a form, not handed out as one it could not show")
	assert.Empty(t, tm.fake.Merges())
}

func TestOverHTTPTheRelayOfAQuestionTheUsersHostFailedIsTheUsersAnswer(t *testing.T) {
	for _, forbid := range []bool{false, true} {
		name := map[bool]string{false: "relayed merges allowed", true: "no relayed merges"}[forbid]
		t.Run(name, func(t *testing.T) {
			tm := newTeam(t, func(c *front.Config) { c.NoRelayedMerge = forbid })
			tm.ready()
			failing := tm.agent("alice", agentOptions{protocol: "2025-11-25", answer: failForm})
			started := failing.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
			require.False(t, started.isError, started.text)
			r := failing.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
			require.Equal(t, "ask_user", r.str("action"), "%v", r.out)
			seq := r.out["question"].(map[string]any)["seq"]
			done := failing.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge", "question_seq": seq})
			if forbid {
				assert.Contains(t, r.str("message"), "only the user's own pick in a form")
				assert.True(t, done.isError, "%v", done.out)
				assert.Contains(t, done.text, "refused, nothing changed")
				assert.Empty(t, tm.fake.Merges())
				return
			}
			require.False(t, done.isError, done.text)
			assert.Equal(t, "merged", done.str("action"), "%v", done.out)
			assert.Len(t, tm.fake.Merges(), 1)
		})
	}
}
