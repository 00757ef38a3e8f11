package front_test

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// ready makes alice's pull request ready to merge: green and approved.
func (tm *team) ready() {
	tm.t.Helper()
	tm.open(ref, "alice")
	require.NoError(tm.t, tm.fake.Apply(githubfake.Ref(ref), githubfake.Approve(githubfake.User("carol"), "LGTM")))
}

// choose answers every form with choice.
func choose(choice string) func(*sdk.ElicitParams) *sdk.ElicitResult {
	return func(*sdk.ElicitParams) *sdk.ElicitResult {
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": choice}}
	}
}

func TestOverHTTPTheQuestionIsAFormInBothErasAndTheUsersMergeGoesThrough(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			tm := newTeam(t)
			tm.ready()
			alice := tm.agent("alice", agentOptions{protocol: protocol, answer: choose("merge")})
			started := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
			require.False(t, started.isError, started.text)
			r := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
			require.False(t, r.isError, r.text)
			assert.Equal(t, 1, alice.formCount(), "the host showed the user the question")
			assert.Contains(t, alice.forms[0], "is ready: approved", "it is the ready-to-merge question")
			assert.Equal(t, "merged", r.str("action"), "%v", r.out)
			require.Len(t, tm.fake.Merges(), 1, "one merge, from the user's own answer")
		})
	}
}

func TestOverHTTPAnAgentsMergeIsNotTakenWhereTheHostCanShowTheQuestionTheUserAnswersItInAForm(t *testing.T) {
	tm := newTeam(t)
	tm.ready()
	alice := tm.agent("alice", agentOptions{protocol: "2025-11-25", answer: choose("wait_for_approver")})
	started := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, started.isError, started.text)
	st := alice.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"})
	monitors, _ := st.out["monitors"].([]any)
	require.Len(t, monitors, 1)
	q, _ := monitors[0].(map[string]any)["pending"].(map[string]any)["question"].(map[string]any)
	require.NotNil(t, q, "the question is open: %v", st.out)

	r := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge", "question_seq": q["seq"]})
	require.False(t, r.isError, r.text)
	assert.Equal(t, 1, alice.formCount(), "the user was asked in a form instead")
	assert.Empty(t, tm.fake.Merges(), "and chose to wait: nothing merged on the agent's word")
}

func TestOverHTTPAClientWithoutFormsGetsTheQuestionAsAskUserButNotAMergeOnItsWord(t *testing.T) {
	tm := newTeam(t)
	tm.ready()
	alice := tm.agent("alice", agentOptions{protocol: "2026-07-28"})
	started := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, started.isError, started.text)
	r := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	require.False(t, r.isError, r.text)
	require.Equal(t, "ask_user", r.str("action"), "%v", r.out)
	q, _ := r.out["question"].(map[string]any)
	assert.Equal(t, "ready_to_merge", q["id"])
	assert.Contains(t, r.str("message"), "Ask the user")
	assert.Contains(t, r.str("message"), "only the user's own pick in a form")

	done := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge", "question_seq": q["seq"]})
	assert.True(t, done.isError, "a session's word that it shows no forms is no consent: %v", done.out)
	assert.Contains(t, done.text, "refused, nothing changed")
	assert.Empty(t, tm.fake.Merges())
	done = alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "wait_for_approver", "question_seq": q["seq"]})
	require.False(t, done.isError, "a choice that does not merge is relayed: %s", done.text)
}

// atTheMergeQuestion readies the pull request, and alice, from a host without forms, starts its
// monitor and is handed the merge question, which then waits for her.
func (tm *team) atTheMergeQuestion() *agent {
	tm.t.Helper()
	tm.ready()
	alice := tm.agent("alice", agentOptions{protocol: "2026-07-28"})
	require.False(tm.t, alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"}).isError)
	r := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	require.Equal(tm.t, "ask_user", r.str("action"), "%v", r.out)
	return alice
}
