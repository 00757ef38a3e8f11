package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
	"github.com/prmonitor/prmonitor/statemachine"
)

const prURL = "https://github.com/acme/widgets/pull/7"

// huge is a pull request as big as GitHub lets it get: 5,000 threads (the first with a 1 MB
// comment and 50 replies), 5,000 failing checks and their 1 MB logs, a 1 MB review.
type huge struct {
	threads []statemachine.ThreadContext
	checks  []statemachine.CheckContext
	logs    []statemachine.CheckLog
	reviews []statemachine.ReviewContext
	mb      statemachine.Untrusted
}

func newHuge() huge {
	var h huge
	h.mb = statemachine.Untrusted(strings.Repeat("Please rename this variable; it shadows the package. ", 20000))
	for i := range 5000 {
		t := statemachine.ThreadContext{ID: fmt.Sprintf("PRRT_%d", i), Reviewer: "bob", Path: fmt.Sprintf("pkg/file%d.go", i), Line: i + 1,
			URL: fmt.Sprintf("%s#discussion_r%d", prURL, i), Comment: "Please rename this."}
		if i == 0 {
			t.Comment = h.mb
			for j := range 50 {
				t.Replies = append(t.Replies, statemachine.CommentContext{Author: "dev", Body: statemachine.Untrusted(fmt.Sprintf("reply %d ", j)) + h.mb[:5000]})
			}
		}
		h.threads = append(h.threads, t)
		h.checks = append(h.checks, statemachine.CheckContext{Name: fmt.Sprintf("test (shard %d)", i), Result: "FAILURE", URL: prURL + "/checks", Rerunnable: true})
		if i < 20 {
			h.logs = append(h.logs, statemachine.CheckLog{Check: h.checks[i].Name, JobID: int64(i), Tail: h.mb})
		}
	}
	h.reviews = []statemachine.ReviewContext{{ID: "PRR_1", Reviewer: "bob", State: "CHANGES_REQUESTED", Body: h.mb}}
	return h
}

func (h huge) pr() statemachine.PRContext {
	return statemachine.PRContext{Ref: "acme/widgets#7", Title: statemachine.Untrusted(strings.Repeat("t", 256)), URL: prURL, HeadRef: "retries", BaseRef: "main"}
}

func (h huge) cluster() *statemachine.ClusterContext {
	c := &statemachine.ClusterContext{Theme: "naming", Instruction: "judge the earlier fixes"}
	for i, t := range h.threads {
		c.NewThreads = append(c.NewThreads, rounds.ClusterThread{ID: t.ID, Reviewer: t.Reviewer, Path: t.Path, Line: t.Line, Category: "naming"})
		c.Files = append(c.Files, t.Path)
		c.Prior = append(c.Prior, statemachine.PriorContext{ThreadID: t.ID, Round: fmt.Sprint(i), Reviewer: "bob", Excerpt: h.mb[:200]})
	}
	return c
}

func TestEveryActionKindStaysUnder16KB(t *testing.T) {
	t.Parallel() // the heaviest payloads: beside the tests that wait
	h := newHuge()
	text := strings.Repeat("x", 60000) // the most an agent may send as data
	thread := h.threads[0]
	q := func(id elicitation.QuestionID) *elicitation.Question {
		return &elicitation.Question{ID: id, Seq: 3, Text: "Which comment should be addressed?\n" + strings.Repeat("1. bob on a.go:1: please rename\n", 10),
			Choices: []elicitation.Choice{{Value: elicitation.HandleMyself, Label: "I'll handle it myself"}, {Value: elicitation.Stop, Label: "Stop monitoring"}}}
	}
	execute := func(task statemachine.TaskName, ctx statemachine.TaskContext) statemachine.Action {
		ctx.PR = h.pr()
		return statemachine.Action{Kind: statemachine.ActionExecute, State: statemachine.StateExecutingTask, Task: task,
			Instructions: strings.Repeat("Do the task. ", 50), ExpectedEvents: []statemachine.Event{statemachine.EventTaskComplete}, Context: &ctx}
	}
	freeform := &statemachine.FreeformContext{Flow: statemachine.FlowComments, Reason: elicitation.ReasonFor(elicitation.ClassifiedUnavailable),
		Elicitation: elicitation.Elicited{Question: q(elicitation.QCommentPick).Text, Choices: q(elicitation.QCommentPick).Choices},
		UserReply:   elicitation.UserReply{Text: text, IsFreeform: true}, Thread: &thread, Checks: h.checks,
		Analysis: &statemachine.Analysis{Recommendation: text, Findings: text, SuggestedFix: text}}
	actions := map[string]statemachine.Action{
		"ask_user comments_multi": {Kind: statemachine.ActionAskUser, State: statemachine.StateAwaitingUser, Question: q(elicitation.QCommentsMulti),
			Context: &statemachine.TaskContext{PR: h.pr(), Threads: h.threads}},
		"ask_user comment_single": {Kind: statemachine.ActionAskUser, State: statemachine.StateAwaitingUser, Question: q(elicitation.QCommentSingle),
			Context: &statemachine.TaskContext{PR: h.pr(), Thread: &thread, Recommendation: text}},
		"ask_user ci_results": {Kind: statemachine.ActionAskUser, State: statemachine.StateAwaitingUser, Question: q(elicitation.QCIResults),
			Context: &statemachine.TaskContext{PR: h.pr(), FailedChecks: h.checks, Findings: text, SuggestedFix: text}},
		"ask_user recovery": {Kind: statemachine.ActionAskUser, State: statemachine.StateAwaitingUser, Question: q(elicitation.QRecovery),
			Context: &statemachine.TaskContext{PR: h.pr(), Threads: h.threads, Reviews: h.reviews, Cluster: h.cluster()}},
		"execute refine": execute(statemachine.TaskRefine, statemachine.TaskContext{Reviews: h.reviews, Threads: h.threads, Cluster: h.cluster(),
			PriorAttempt: &statemachine.PriorAttempt{Reviewer: "bob", Feedback: h.mb}}),
		"execute explain_comment":        execute(statemachine.TaskExplainComment, statemachine.TaskContext{Thread: &thread}),
		"execute address_comment":        execute(statemachine.TaskAddressComment, statemachine.TaskContext{Thread: &thread, Recommendation: text, Cluster: h.cluster()}),
		"execute apply_recommendation":   execute(statemachine.TaskApplyRecommendation, statemachine.TaskContext{Thread: &thread, Recommendation: text}),
		"execute compose_reply":          execute(statemachine.TaskComposeReply, statemachine.TaskContext{Thread: &thread, Recommendation: text}),
		"execute investigate_ci_failure": execute(statemachine.TaskInvestigateCIFailure, statemachine.TaskContext{FailedChecks: h.checks, Logs: h.logs}),
		"execute apply_fix":              execute(statemachine.TaskApplyFix, statemachine.TaskContext{FailedChecks: h.checks, Findings: text, SuggestedFix: text}),
		"execute rebase":                 execute(statemachine.TaskRebase, statemachine.TaskContext{Note: text}),
		"execute interpret_freeform":     execute(statemachine.TaskInterpretFreeform, statemachine.TaskContext{Freeform: freeform}),
		"polling with a long message":    {Kind: statemachine.ActionPolling, Message: text},
	}
	for name, act := range actions {
		t.Run(name, func(t *testing.T) {
			before := JSONSize(act)
			out := Output("acme/widgets#7", Bound(act, ActionBudget))
			out.Summary = strings.Repeat("s", 300)
			b, err := json.Marshal(out)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(b), MaxPayload, "%s: %d bytes (%d unbounded)", name, len(b), before)
			assert.Equal(t, act.Kind == statemachine.ActionAskUser, out.Question != nil, "the question survives")
			if act.Context != nil && act.Task != statemachine.TaskRebase { // a rebase carries only the server's note
				require.NotNil(t, out.Context)
				assert.NotEmpty(t, out.Context.Omitted, "what was cut is said")
				assert.Contains(t, strings.Join(out.Context.Omitted, "\n"), "https://github.com/acme/widgets/pull/7", "with a link to the whole")
				assert.Equal(t, act.Context.PR.URL, out.Context.PR.URL)
			}
			if act.Context != nil && act.Context.Thread != nil {
				require.NotNil(t, out.Context.Thread, "the thread in play is kept")
				assert.Equal(t, thread.ID, out.Context.Thread.ID)
				assert.Equal(t, thread.URL, out.Context.Thread.URL, "with the link to the whole comment")
				assert.Contains(t, strings.Join(out.Context.Omitted, "\n"), thread.URL)
			}
			status := BoundOutput(out, StatusBudget)
			assert.LessOrEqual(t, JSONSize(status), StatusBudget, "half a status result")
		})
	}
	assert.Len(t, h.threads[0].Replies, 50, "the machine's copy is never cut")
	assert.Len(t, string(h.threads[0].Comment), len(h.mb))
}

func TestBoundKeepsSmallActionsWhole(t *testing.T) {
	thread := statemachine.ThreadContext{ID: "T1", Reviewer: "bob", Comment: "Please rename this.", URL: prURL + "#discussion_r1"}
	act := statemachine.Action{Kind: statemachine.ActionExecute, Task: statemachine.TaskExplainComment,
		ExpectedEvents: []statemachine.Event{statemachine.EventTaskComplete},
		Context:        &statemachine.TaskContext{PR: statemachine.PRContext{Ref: "acme/widgets#7", URL: prURL}, Thread: &thread}}
	assert.Equal(t, act, Bound(act, ActionBudget))

	server := statemachine.Action{Kind: statemachine.ActionServer, Server: &statemachine.ServerRequest{Kind: statemachine.ServerPostReply,
		Body: strings.Repeat("a reply the agent wrote ", 3000)}}
	assert.Equal(t, server, Bound(server, 100), "a server action is what gets posted: never cut")
}

func TestBoundNeverSplitsAFence(t *testing.T) {
	quote := statemachine.Untrusted(strings.Repeat("hostile words ", 2000)).Fenced()
	for _, n := range []int{10, 300, 5000} {
		got := ClipProse("Could not post. The error:\n"+quote, n)
		assert.NotContains(t, got, "<<<untrusted", "a cut keeps the text before the quote")
		assert.LessOrEqual(t, len(got), n)
	}
	q := boundQuestion("Which one?\n" + quote)
	assert.NotContains(t, q, "<<<untrusted")
	assert.Contains(t, q, "too long to show")
}

func TestKeepEndKeepsTheEndOfALog(t *testing.T) {
	log := strings.Repeat("ok line\n", 1000) + "--- FAIL: TestRetry\nFAIL"
	got := keepEnd(log, 100)
	assert.LessOrEqual(t, len(got), 100)
	assert.True(t, strings.HasSuffix(got, "--- FAIL: TestRetry\nFAIL"))
	assert.True(t, strings.HasPrefix(got, "…\nok line\n"), "from a line start: %q", got)
	assert.Equal(t, "short", keepEnd("short", 100))
}
