package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Every step the server takes is logged with the machine's own names in typed fields, so that a
// reader (prmonitor status) never parses the summary: the poll's attention and the task it handed
// out, the question a step asked and the answer given to it with its seq, the server's GitHub work
// and its outcome; and an input the machine refused, with why.
func TestEveryStepIsLoggedInTheMachinesOwnNames(t *testing.T) {
	t.Parallel()
	// No elicitation, no sampling: the agent asks and explains. The last call posts the reply
	// within its bound (the harness's 3 s: 1 s ran out under -race with the cores busy).
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "Add retries"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 12, Body: "use backoff"}))
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "explain_comment", act.Task)
	act = h.next("task_complete", "", map[string]any{"recommendation": "Agree; small change."})
	require.Equal(t, "ask_user", act.Action)
	seq := act.Question.Seq

	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": h.ref.String(), "event": "user_chose", "choice": "merge"})
	require.NotEmpty(t, errText, "a choice the question does not offer is refused")
	raw, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": h.ref.String(), "event": "user_chose",
		"choice": "address", "question_seq": seq})
	require.Empty(t, errText)
	require.NoError(t, json.Unmarshal(raw, &act))
	require.Equal(t, "address_comment", act.Task)
	h.next("comment_addressed", "", map[string]any{"reply_text": "Done: backoff with jitter."})

	events := h.state.Logged(h.ref.String())
	find := func(what string, match func(store.Event) bool) store.Event {
		t.Helper()
		for _, e := range events {
			if match(e) {
				return e
			}
		}
		t.Fatalf("no event %s in %s", what, h.state.Events(h.ref.String()))
		return store.Event{}
	}

	poll := find("poll handing out the explanation", func(e store.Event) bool { return e.Input == "poll" && e.Task == "explain_comment" })
	assert.Equal(t, store.EventPoll, poll.Kind)
	assert.Equal(t, "new_comments", poll.Attention)
	assert.Equal(t, "execute", poll.Action)
	assert.True(t, poll.IsStep())

	asked := find("the question", func(e store.Event) bool { return e.AgentEvent == "task_complete" })
	assert.Equal(t, store.EventAgent, asked.Kind)
	assert.Equal(t, "ask_user", asked.Action)
	assert.Equal(t, &store.QuestionRef{ID: "comment_single", Seq: seq}, asked.Asked)

	refused := find("the refused choice", func(e store.Event) bool { return e.Kind == store.EventError })
	assert.Equal(t, "event", refused.Input)
	assert.Equal(t, "user_chose", refused.AgentEvent)
	assert.Equal(t, "merge", refused.Choice)
	assert.Equal(t, &store.QuestionRef{ID: "comment_single", Seq: seq}, refused.Answered)
	assert.NotEmpty(t, refused.Error)
	assert.False(t, refused.IsStep(), "a refused input moved nothing")

	chose := find("the answer", func(e store.Event) bool { return e.Choice == "address" })
	assert.Equal(t, store.EventAnswer, chose.Kind)
	assert.Equal(t, &store.QuestionRef{ID: "comment_single", Seq: seq}, chose.Answered)
	assert.Equal(t, "execute", chose.Action)
	assert.Equal(t, "address_comment", chose.Task)

	reported := find("the task's report", func(e store.Event) bool { return e.AgentEvent == "comment_addressed" })
	assert.Equal(t, "server", reported.Action)
	assert.Equal(t, "post_reply", reported.Work)

	work := find("the reply's work", func(e store.Event) bool { return e.Kind == store.EventGitHub && e.Input == "" })
	assert.Equal(t, &store.WorkOutcome{Work: "post_reply", OK: true}, work.Outcome)
	assert.False(t, work.IsStep())

	done := find("the reply's outcome", func(e store.Event) bool { return e.Input == "outcome" })
	assert.Equal(t, &store.WorkOutcome{Work: "post_reply", OK: true}, done.Outcome)
	assert.NotEmpty(t, done.Node)
}
