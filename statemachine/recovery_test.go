package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// toApply reaches apply_recommendation on a single comment.
func toApply(t *testing.T) *drv {
	d := start(t)
	d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
	d.ev(EventTaskComplete, EventData{Recommendation: "do it"})
	requireExecute(t, d.choose(elicitation.ApplyRecommendation), TaskApplyRecommendation)
	return d
}

func TestReadyMidTaskRereadsTheHeadAndNeverWipesTheFlow(t *testing.T) {
	tests := []struct {
		name    string
		reach   func(*testing.T) *drv
		head    HeadRefresh
		want    TaskName // non-empty: completed automatically into this task
		server  ServerActionKind
		polling bool
		ask     []elicitation.Value
		reason  string
	}{
		{
			name: "address_comment pushed: unambiguous, treated as addressed (reply composed)",
			reach: func(t *testing.T) *drv {
				d := start(t)
				d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
				d.ev(EventTaskComplete, EventData{})
				d.choose(elicitation.Address)
				return d
			},
			head: HeadRefresh{OK: true, SHA: sha("c2")}, want: TaskComposeReply,
		},
		{
			name: "apply_recommendation pushed: ambiguous, asks", reach: toApply, head: HeadRefresh{OK: true, SHA: sha("c2")},
			ask:    []elicitation.Value{elicitation.TreatAsAddressed, elicitation.TreatAsReplied, elicitation.Skip, elicitation.BackToTask, elicitation.Resume, elicitation.Stop},
			reason: "did not say",
		},
		{
			name: "nothing pushed: asks", reach: toApply, head: HeadRefresh{OK: true, SHA: sha("c1")},
			ask:    []elicitation.Value{elicitation.TreatAsAddressed, elicitation.TreatAsReplied, elicitation.Skip, elicitation.BackToTask, elicitation.Resume, elicitation.Stop},
			reason: "no new commit",
		},
		{
			name: "head unreadable: says so and asks", reach: toApply, head: HeadRefresh{Error: "GitHub unreachable"},
			ask:    []elicitation.Value{elicitation.TreatAsAddressed, elicitation.TreatAsReplied, elicitation.Skip, elicitation.BackToTask, elicitation.Resume, elicitation.Stop},
			reason: "couldn't check",
		},
		{
			name: "apply_fix pushed: treated as push_completed",
			reach: func(t *testing.T) *drv {
				d := start(t)
				d.poll(newPR().failing())
				d.ok(ServerFetchCILogs)
				d.ev(EventInvestigationComplete, EventData{SuggestedFix: "f"})
				d.choose(elicitation.ApplyFix)
				return d
			},
			head: HeadRefresh{OK: true, SHA: sha("c2")}, polling: true,
		},
		{
			name: "rebase not pushed: asks with treat-as-pushed",
			reach: func(t *testing.T) *drv {
				d := start(t)
				d.poll(newPR().conflict())
				d.choose(elicitation.Rebase)
				return d
			},
			head:   HeadRefresh{OK: true, SHA: sha("c1")},
			ask:    []elicitation.Value{elicitation.TreatAsPushed, elicitation.BackToTask, elicitation.Resume, elicitation.Stop},
			reason: "no new commit",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.reach(t)
			flow := d.m.pos.Node.Flow()
			requireServer(t, d.ev(EventReady, EventData{}), ServerFetchHead)
			act := d.send(HeadInput(tt.head))
			switch {
			case tt.want != "":
				requireExecute(t, act, tt.want)
				assert.Equal(t, sha("c1"), act.Context.HeadSnapshot, "the snapshot of the task that pushed")
			case tt.polling:
				assert.Equal(t, ActionPolling, act.Kind)
			default:
				requireAsk(t, act, elicitation.QRecovery, tt.ask...)
				assert.Contains(t, act.Question.Text, tt.reason)
				assert.Equal(t, flow, d.m.pos.Node.Flow(), "the flow survives")
				assert.NotContains(t, act.Question.Text, "ready_unresolved", "no internal names leak")
			}
		})
	}
}

func TestRecoveryChoices(t *testing.T) {
	recover := func(t *testing.T) *drv {
		d := toApply(t)
		d.ev(EventTaskComplete, EventData{}) // the wrong completion event
		d.head(sha("c1"))
		return d
	}
	t.Run("back to the task re-emits it exactly", func(t *testing.T) {
		d := toApply(t)
		emitted := d.m.pos.Task.Emitted
		d.ev(EventReady, EventData{})
		d.head(sha("c1"))
		act := d.choose(elicitation.BackToTask)
		requireExecute(t, act, TaskApplyRecommendation)
		assert.Equal(t, emitted.Context, act.Context)
		assert.Equal(t, emitted.ExpectedEvents, act.ExpectedEvents)
	})
	t.Run("treat as addressed composes the reply", func(t *testing.T) {
		d := recover(t)
		act := d.choose(elicitation.TreatAsAddressed)
		requireExecute(t, act, TaskComposeReply, EventCommentAddressed)
	})
	t.Run("treat as replied on GitHub posts nothing", func(t *testing.T) {
		d := recover(t)
		act := d.choose(elicitation.TreatAsReplied)
		requireServer(t, act, ServerRequestReview) // bob's thread counts as answered
	})
	t.Run("skip moves on", func(t *testing.T) {
		d := recover(t)
		assert.Equal(t, ActionPolling, d.choose(elicitation.Skip).Kind)
	})
	t.Run("resume drops the task and acknowledges", func(t *testing.T) {
		d := recover(t)
		assert.Equal(t, ActionPolling, d.choose(elicitation.Resume).Kind)
		assert.Nil(t, d.m.pos.Comments)
	})
	t.Run("stop wins", func(t *testing.T) {
		d := recover(t)
		assert.Equal(t, ActionStop, d.choose(elicitation.Stop).Kind)
		assert.Equal(t, NodeStopped, d.m.pos.Node)
	})
}

func TestWrongCompletionEventWithAPushIsAccepted(t *testing.T) {
	// The agent skipped from investigating straight to pushing a fix. push_completed is not what
	// investigation expects, so the head is re-read: it moved, so the push counts.
	d := start(t)
	d.poll(newPR().failing())
	d.ok(ServerFetchCILogs)
	requireServer(t, d.ev(EventPushCompleted, EventData{}), ServerFetchHead)
	assert.Equal(t, ActionPolling, d.head(sha("c2")).Kind)
}

func TestFreeformAnswerGoesToTheAgentAndTheSameQuestionComesBack(t *testing.T) {
	d := start(t)
	d.poll(newPR().failing())
	d.ok(ServerFetchCILogs)
	d.ev(EventInvestigationComplete, EventData{Findings: "flaky network"})
	seq := d.m.pos.Question.Seq

	act := d.send(FreeformInput(FreeformAnswer{Text: "bump the timeout and rerun", Classification: elicitation.ClassifiedUnavailable}))
	requireExecute(t, act, TaskInterpretFreeform, EventUserChose, EventPushCompleted, EventTaskComplete)
	fc := act.Context.Freeform
	require.NotNil(t, fc)
	assert.Equal(t, FlowCI, fc.Flow)
	assert.Equal(t, elicitation.ReasonSamplingUnavailable, fc.Reason)
	assert.Equal(t, "bump the timeout and rerun", fc.UserReply.Text)
	assert.True(t, fc.UserReply.IsFreeform)
	assert.NotEmpty(t, fc.Elicitation.Choices)
	assert.Equal(t, "test", fc.Checks[0].Name)
	assert.Equal(t, "flaky network", fc.Analysis.Findings)
	assert.Contains(t, act.Instructions, "Context boundary")

	act = d.ev(EventTaskComplete, EventData{Recommendation: "raise the timeout to 30s"})
	requireAsk(t, act, elicitation.QCIResults, elicitation.ApplyFix, elicitation.RerunFailed, elicitation.RerunAll, elicitation.HandleMyself, elicitation.Stop)
	assert.Greater(t, act.Question.Seq, seq)
	assert.Contains(t, act.Question.Text, "raise the timeout", "the updated recommendation is offered")
}

func TestFreeformPathAMapsBackToAChoice(t *testing.T) {
	d := start(t)
	d.poll(approvedPR())
	d.send(FreeformInput(FreeformAnswer{Text: "hold on until dave looks", Classification: elicitation.ClassifiedCustom, Reasoning: "not a listed choice"}))
	d.reject(ChoiceInput(elicitation.Rebase), ErrChoiceNotOffered)
	act := d.choose(elicitation.WaitForApprover)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.NotNil(t, d.m.pos.Memory.Wait)
}

func TestFreeformPathBInCommentsPostsTheReply(t *testing.T) {
	d := start(t)
	d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
	d.ev(EventTaskComplete, EventData{Recommendation: "r"})
	act := d.send(FreeformInput(FreeformAnswer{Text: "tell bob we'll do it in a follow-up", Classification: elicitation.ClassifiedCustom}))
	requireExecute(t, act, TaskInterpretFreeform)
	assert.Equal(t, "T1", act.Context.Freeform.Thread.ID)
	req := requireServer(t, d.ev(EventCommentReplied, EventData{ReplyText: "Follow-up: #12"}), ServerPostReply)
	assert.Equal(t, prstatus.ReplyReplied, req.Marker.Kind)
}

func TestBadInputIsRejectedAndChangesNothing(t *testing.T) {
	d := start(t)
	d.reject(ChoiceInput(elicitation.Merge), ErrNoQuestion)
	d.reject(EventInput("finished", "", EventData{}), ErrUnknownEvent)
	d.reject(Input{Kind: "bogus"}, ErrBadInput)
	d.reject(EventInput(EventCommentAddressed, "", EventData{ReplyText: string(make([]byte, maxDataText+1))}), ErrBadInput)
	d.reject(OutcomeInput(Outcome{Kind: ServerMerge, OK: true}), ErrUnexpectedOutcome)
	d.reject(DeclineInput(), ErrNoQuestion)

	d.poll(approvedPR())
	d.reject(ChoiceInput(elicitation.Rebase), ErrChoiceNotOffered)
	d.reject(ChoiceInput("merge_now"), ErrChoiceNotOffered)
	stale := ChoiceInput(elicitation.Merge)
	stale.QuestionSeq = d.m.pos.Question.Seq + 1
	d.reject(stale, ErrStaleAnswer)
	d.reject(OutcomeInput(Outcome{Kind: ServerMerge, OK: true}), ErrUnexpectedOutcome)
	assert.Equal(t, NodeReadyAsk, d.m.pos.Node)

	// Events that make no sense now are harmless: the question is simply shown again.
	act := d.ev(EventPushCompleted, EventData{})
	requireAsk(t, act, elicitation.QReadyToMerge)
	assert.Contains(t, act.Message, "ignored")
}

func TestStopWinsFromEveryQuestion(t *testing.T) {
	for _, r := range reachers() {
		t.Run(string(r.id), func(t *testing.T) {
			d := r.reach(t)
			require.Equal(t, r.id, d.m.pos.Question.ID)
			act := d.choose(elicitation.Stop)
			assert.Equal(t, ActionStop, act.Kind)
			assert.Equal(t, NodeStopped, d.m.pos.Node)
			assert.Nil(t, d.m.pos.Question)
			assert.Equal(t, ActionStop, d.ev(EventReady, EventData{}).Kind, "a stopped monitor stays stopped")
		})
	}
}
