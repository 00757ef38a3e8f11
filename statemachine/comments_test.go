package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

func TestSingleCommentIsExplainedThenAppliedRepliedAndResolved(t *testing.T) {
	p := newPR().thread("T1", "bob", "retry.go", 12, "use exponential backoff")
	d := start(t)

	act := d.poll(p)
	requireExecute(t, act, TaskExplainComment, EventTaskComplete)
	assert.Equal(t, "T1", act.Context.Thread.ID)
	assert.Contains(t, mustJSON(t, act.Context.Thread.Comment), "untrusted GitHub text", "reviewer text is fenced")

	act = d.ev(EventTaskComplete, EventData{Recommendation: "Agree: switch to backoff with jitter."})
	requireAsk(t, act, elicitation.QCommentSingle, elicitation.ApplyRecommendation, elicitation.Address, elicitation.Skip, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "switch to backoff")

	act = d.choose(elicitation.ApplyRecommendation)
	requireExecute(t, act, TaskApplyRecommendation, EventCommentAddressed, EventCommentReplied)
	assert.Equal(t, sha("c1"), act.Context.HeadSnapshot, "a push-capable task snapshots the head")

	req := requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "Done in c2."}), ServerPostReply)
	assert.Equal(t, "Done in c2.", req.Body)
	assert.Equal(t, prstatus.ReplyAddressed, req.Marker.Kind)
	assert.Equal(t, "T1", req.Marker.Thread)
	assert.NotEmpty(t, req.Marker.Round)
	assert.NotZero(t, req.ReplyToID)

	requireServer(t, d.ok(ServerPostReply), ServerResolveThread)
	rr := requireServer(t, d.ok(ServerResolveThread), ServerRequestReview)
	assert.Equal(t, []string{"bob"}, rr.Reviewers, "bob's only comment is answered: ask him to review again")
	act = d.ok(ServerRequestReview)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.True(t, act.PollNow)
}

func TestAddressedWithoutReplyTextComposesOneKeepingTheSnapshot(t *testing.T) {
	p := newPR().thread("T1", "bob", "a.go", 1, "rename x")
	d := start(t)
	d.poll(p)
	d.ev(EventTaskComplete, EventData{Recommendation: "rename"})
	requireExecute(t, d.choose(elicitation.Address), TaskAddressComment, EventCommentAddressed, EventCommentReplied)

	d.m.pos.Head = sha("c2") // the agent pushed meanwhile; compose must keep the task's snapshot
	act := d.ev(EventCommentAddressed, EventData{})
	requireExecute(t, act, TaskComposeReply, EventCommentAddressed)
	assert.Equal(t, sha("c1"), act.Context.HeadSnapshot, "compose_reply keeps the snapshot of the task that pushed")
	assert.Equal(t, prstatus.ReplyAddressed, act.Context.ReplyKind)

	req := requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "Renamed."}), ServerPostReply)
	assert.Equal(t, prstatus.ReplyAddressed, req.Marker.Kind)
}

func TestReplyToAHumanLeavesTheThreadOpenAndToABotResolvesIt(t *testing.T) {
	tests := []struct {
		name     string
		reviewer string
		resolve  bool
	}{
		{"human reviewer waits for the reviewer", "bob", false},
		{"bot reviewer is resolved: bots never answer", "copilot-pull-request-reviewer[bot]", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			d.poll(newPR().thread("T1", tt.reviewer, "a.go", 1, "this is wrong"))
			d.ev(EventTaskComplete, EventData{Recommendation: "push back: it is right, see test"})
			d.choose(elicitation.ApplyRecommendation)
			req := requireServer(t, d.ev(EventCommentReplied, EventData{ReplyText: "It is right; see TestX."}), ServerPostReply)
			assert.Equal(t, prstatus.ReplyReplied, req.Marker.Kind)
			act := d.ok(ServerPostReply)
			if tt.resolve {
				requireServer(t, act, ServerResolveThread)
				act = d.ok(ServerResolveThread)
			}
			// Either way the reviewer is asked to look again.
			requireServer(t, act, ServerRequestReview)
		})
	}
}

func threePR() *pr {
	return newPR().
		thread("T1", "bob", "a.go", 1, "one").
		thread("T2", "eve", "b.go", 2, "two").
		thread("T3", "bob", "c.go", 3, "three")
}

func TestAddressAllIteratesAddressSkipDone(t *testing.T) {
	d := start(t)
	act := d.poll(threePR())
	requireAsk(t, act, elicitation.QCommentsMulti, elicitation.AddressAll, elicitation.ExplainAll, elicitation.AddressSpecific, elicitation.HandleMyself, elicitation.Stop)

	act = d.choose(elicitation.AddressAll)
	requireAsk(t, act, elicitation.QCommentItem, elicitation.Address, elicitation.Skip, elicitation.Done, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "1/3")

	requireExecute(t, d.choose(elicitation.Address), TaskAddressComment)
	d.ev(EventCommentAddressed, EventData{ReplyText: "fixed"})
	d.ok(ServerPostReply)
	act = d.ok(ServerResolveThread)
	requireAsk(t, act, elicitation.QCommentItem)
	assert.Contains(t, act.Question.Text, "2/3")

	act = d.choose(elicitation.Skip)
	requireAsk(t, act, elicitation.QCommentItem)
	assert.Contains(t, act.Question.Text, "3/3")

	act = d.choose(elicitation.Done)
	assert.Equal(t, ActionPolling, act.Kind, "bob still has an unanswered thread and eve's was skipped: nobody to re-request")

	// The skipped and unanswered threads are acknowledged in their current state...
	p := threePR().resolve("T1")
	assert.Equal(t, ActionPolling, d.poll(p).Kind)
	// ...until someone writes in them again.
	act = d.poll(p.reply("T2", "eve", "ping?"))
	requireExecute(t, act, TaskExplainComment)
	assert.Equal(t, "T2", act.Context.Thread.ID)
}

func TestExplainAllThenApplySkipDone(t *testing.T) {
	d := start(t)
	d.poll(threePR())
	requireExecute(t, d.choose(elicitation.ExplainAll), TaskExplainComment)
	act := d.ev(EventTaskComplete, EventData{Recommendation: "agree"})
	requireAsk(t, act, elicitation.QCommentExplained, elicitation.ApplyRecommendation, elicitation.Address, elicitation.Skip, elicitation.Done, elicitation.Stop)
	d.choose(elicitation.ApplyRecommendation)
	d.ev(EventCommentReplied, EventData{ReplyText: "answer"})
	act = d.ok(ServerPostReply) // human: not resolved
	requireExecute(t, act, TaskExplainComment)
	assert.Equal(t, "T2", act.Context.Thread.ID)
	d.ev(EventTaskComplete, EventData{Recommendation: "nit"})
	act = d.choose(elicitation.Skip)
	requireExecute(t, act, TaskExplainComment)
	assert.Equal(t, "T3", act.Context.Thread.ID)
	d.ev(EventTaskComplete, EventData{})
	assert.Equal(t, ActionPolling, d.choose(elicitation.Done).Kind)
}

func TestPickOneThenRemaining(t *testing.T) {
	d := start(t)
	d.poll(threePR())
	act := d.choose(elicitation.AddressSpecific)
	requireAsk(t, act, elicitation.QCommentPick, elicitation.Pick(1), elicitation.Pick(2), elicitation.Pick(3), elicitation.HandleMyself, elicitation.Stop)

	act = d.choose(elicitation.Pick(2))
	requireExecute(t, act, TaskExplainComment)
	assert.Equal(t, "T2", act.Context.Thread.ID)
	d.ev(EventTaskComplete, EventData{Recommendation: "do it"})
	d.choose(elicitation.ApplyRecommendation)
	d.ev(EventCommentAddressed, EventData{ReplyText: "done"})
	d.ok(ServerPostReply)
	act = d.ok(ServerResolveThread)
	requireAsk(t, act, elicitation.QCommentsRemaining, elicitation.Continue, elicitation.Done, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "2 more")

	act = d.choose(elicitation.Continue)
	requireExecute(t, act, TaskExplainComment)
	assert.Equal(t, "T1", act.Context.Thread.ID)
	d.ev(EventTaskComplete, EventData{})
	act = d.choose(elicitation.Skip)
	requireAsk(t, act, elicitation.QCommentsRemaining)
	act = d.choose(elicitation.Done)
	requireServer(t, act, ServerRequestReview) // eve's only thread is answered
	assert.Equal(t, []string{"eve"}, act.Server.Reviewers)
}

func TestHandleMyselfWaitsForDoneAndNeverStops(t *testing.T) {
	d := start(t)
	d.poll(threePR())
	requireAsk(t, d.choose(elicitation.HandleMyself), elicitation.QCommentsManual, elicitation.DoneHandling, elicitation.Stop)
	act := d.choose(elicitation.DoneHandling)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Equal(t, ActionPolling, d.poll(threePR()).Kind, "the same threads are not raised again")
}

func TestDeclineMeansHandleItWithinTheFlowAndCancelAsksAgain(t *testing.T) {
	d := start(t)
	d.poll(threePR())
	act := d.send(CancelInput())
	requireAsk(t, act, elicitation.QCommentsMulti)
	assert.Contains(t, act.Message, "stays open")
	requireAsk(t, d.send(DeclineInput()), elicitation.QCommentsManual)
	assert.NotEqual(t, NodeStopped, d.m.pos.Node, "a decline never stops monitoring")
}

func TestReviewerReplyIsExplainedAndCanBeResolved(t *testing.T) {
	p := newPR().thread("T1", "bob", "a.go", 1, "why?").reply("T1", "dev", "because X")
	d := start(t)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "waiting for bob")

	act := d.poll(p.reply("T1", "bob", "ok, makes sense"))
	requireExecute(t, act, TaskExplainComment)
	assert.True(t, act.Context.Thread.ReviewerReplied)
	assert.Contains(t, act.Context.Note, "replied")
	act = d.ev(EventTaskComplete, EventData{Recommendation: "bob agrees; resolve"})
	requireAsk(t, act, elicitation.QCommentSingle, elicitation.ApplyRecommendation, elicitation.Address, elicitation.ResolveThread, elicitation.Skip, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "makes sense")
	requireServer(t, d.choose(elicitation.ResolveThread), ServerResolveThread)
	requireServer(t, d.ok(ServerResolveThread), ServerRequestReview)
}

func TestFailedReplyAsksInsteadOfLooping(t *testing.T) {
	d := start(t)
	d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
	d.ev(EventTaskComplete, EventData{Recommendation: "r"})
	d.choose(elicitation.ApplyRecommendation)
	d.ev(EventCommentAddressed, EventData{ReplyText: "done"})
	act := d.fail(ServerPostReply, "HTTP 502")
	requireAsk(t, act, elicitation.QActionFailed, elicitation.Retry, elicitation.Skip, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "502")
	req := requireServer(t, d.choose(elicitation.Retry), ServerPostReply)
	assert.Equal(t, "done", req.Body, "the retry posts the same reply")
	d.fail(ServerPostReply, "HTTP 502")
	act = d.choose(elicitation.Skip)
	assert.Equal(t, ActionPolling, act.Kind)
}

func TestRefineFollowUpCollectsARepliesPerThreadWithoutAsking(t *testing.T) {
	p := newPR().review("bob", prstatus.ReviewChangesRequested, "please fix both").
		thread("T1", "bob", "a.go", 1, "one").thread("T2", "bob", "b.go", 2, "two")
	d := start(t)
	act := d.poll(p)
	requireExecute(t, act, TaskRefine, EventPushCompleted, EventTaskComplete)
	require.Len(t, act.Context.Threads, 2)
	require.Len(t, act.Context.Reviews, 1)
	assert.Equal(t, "bob", act.Context.Reviews[0].Reviewer)

	assert.Equal(t, ActionPolling, d.ev(EventPushCompleted, EventData{}).Kind)
	act = d.poll(p.push("c2"))
	requireExecute(t, act, TaskAddressComment, EventCommentAddressed, EventCommentReplied)
	assert.Equal(t, ModeFollowUp, d.m.pos.Comments.Mode)
	assert.Contains(t, act.Context.Note, "refined")
	d.ev(EventCommentAddressed, EventData{ReplyText: "fixed in c2"})
	d.ok(ServerPostReply)
	act = d.ok(ServerResolveThread)
	requireExecute(t, act, TaskAddressComment)
	assert.Equal(t, "T2", act.Context.Thread.ID)
	d.ev(EventCommentReplied, EventData{ReplyText: "I kept it: see test"})
	act = d.ok(ServerPostReply)
	rr := requireServer(t, act, ServerRequestReview)
	assert.Equal(t, []string{"bob"}, rr.Reviewers)
}

func TestAReviewersReplyAfterARefineIsExplainedNotTreatedAsFollowUp(t *testing.T) {
	p := newPR().review("bob", prstatus.ReviewChangesRequested, "fix").thread("T1", "bob", "a.go", 1, "use a ticker")
	d := start(t)
	requireExecute(t, d.poll(p), TaskRefine)
	d.ev(EventPushCompleted, EventData{})
	requireExecute(t, d.poll(p.push("c2")), TaskAddressComment) // follow-up: reply per thread
	d.ev(EventCommentReplied, EventData{ReplyText: "A ticker would leak."})
	d.ok(ServerPostReply)
	d.ok(ServerRequestReview)
	p.reply("T1", "dev", "A ticker would leak.")

	act := d.poll(p.reply("T1", "bob", "Fair point."))
	requireExecute(t, act, TaskExplainComment)
	assert.True(t, act.Context.Thread.ReviewerReplied)
	assert.Equal(t, ModeSingle, d.m.pos.Comments.Mode, "bob's answer is new feedback, not part of the refine")
}

func TestAFinishedCommentFlowNeverRefiresOnAnUnchangedSituation(t *testing.T) {
	// The reply did not land (GitHub shows the thread exactly as before): the same flow must not
	// start again, or the monitor would loop.
	p := newPR().thread("T1", "bob", "a.go", 1, "why?").reply("T1", "dev", "because").reply("T1", "bob", "hm")
	d := start(t)
	requireExecute(t, d.poll(p), TaskExplainComment)
	d.ev(EventTaskComplete, EventData{Recommendation: "answer"})
	d.choose(elicitation.ApplyRecommendation)
	d.ev(EventCommentReplied, EventData{ReplyText: "see X"})
	d.ok(ServerPostReply)
	d.ok(ServerRequestReview)
	for range 3 {
		assert.Equal(t, ActionPolling, d.poll(p).Kind)
	}
	requireExecute(t, d.poll(p.reply("T1", "bob", "still hm")), TaskExplainComment, EventTaskComplete)
}

// A poll that still shows a thread the flow just answered (a snapshot taken before the reply, or
// GitHub catching up) hands nothing out for it again: the thread is answered in that state, and
// the machine remembers it in its saved position, not in the process that posted the reply.
func TestAnsweredThreadsAreNotHandedOutAgainByAStalePoll(t *testing.T) {
	p := newPR().
		thread("T1", "copilot-pull-request-reviewer[bot]", "a.go", 1, "one").
		thread("T2", "bob", "b.go", 2, "two")
	d := start(t)
	requireAsk(t, d.poll(p), elicitation.QCommentsMulti)
	requireAsk(t, d.choose(elicitation.AddressAll), elicitation.QCommentItem)
	requireExecute(t, d.choose(elicitation.Address), TaskAddressComment)
	requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "fixed"}), ServerPostReply)
	requireServer(t, d.ok(ServerPostReply), ServerResolveThread)
	requireAsk(t, d.ok(ServerResolveThread), elicitation.QCommentItem)
	// GitHub now shows T1 answered; a snapshot taken here (pr_monitor_start's, after a restart)
	// still shows T2 as it was.
	stale := p.reply("T1", "dev", "fixed <!-- prmonitor:v1 round=r1 thread=T1 kind=addressed -->").resolve("T1").facts()
	m, err := Restore(DefaultConfig(), d.m.Position())
	require.NoError(t, err)
	d.m = m

	requireExecute(t, d.choose(elicitation.Address), TaskAddressComment)
	requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "fixed"}), ServerPostReply)
	requireServer(t, d.ok(ServerPostReply), ServerResolveThread)
	requireServer(t, d.ok(ServerResolveThread), ServerRequestReview)
	require.Equal(t, ActionPolling, d.ok(ServerRequestReview).Kind)

	act := d.send(PollInput(stale))
	assert.Equal(t, ActionPolling, act.Kind, "nothing to hand out: T2 was answered in this state, got %+v", act)
}

// TestHandlingTheLastPickedCommentEndsTheFlow: once every comment picked from the list is handled,
// nothing is left to continue with, and the flow ends instead of offering the rest.
func TestHandlingTheLastPickedCommentEndsTheFlow(t *testing.T) {
	address := func(d *drv) Action {
		d.ev(EventTaskComplete, EventData{Recommendation: "do it"})
		d.choose(elicitation.ApplyRecommendation)
		d.ev(EventCommentAddressed, EventData{ReplyText: "done"})
		d.ok(ServerPostReply)
		return d.ok(ServerResolveThread)
	}
	d := start(t)
	d.poll(newPR().thread("T1", "bob", "a.go", 1, "one").thread("T2", "eve", "b.go", 2, "two"))
	d.choose(elicitation.AddressSpecific)
	requireExecute(t, d.choose(elicitation.Pick(2)), TaskExplainComment)
	act := address(d)
	requireAsk(t, act, elicitation.QCommentsRemaining, elicitation.Continue, elicitation.Done, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "1 more")
	act = d.choose(elicitation.Continue)
	requireExecute(t, act, TaskExplainComment)
	assert.Equal(t, "T1", act.Context.Thread.ID)
	req := requireServer(t, address(d), ServerRequestReview)
	assert.ElementsMatch(t, []string{"bob", "eve"}, req.Reviewers)
}

// TestOnlyAnsweredCommentsCountAsWorkForTheRound: a comment flow in which a comment was addressed
// or answered waits for the reviewers' verdict on that work; one in which every comment was only
// skipped did no work to judge.
func TestOnlyAnsweredCommentsCountAsWorkForTheRound(t *testing.T) {
	for _, tt := range []struct {
		name   string
		handle func(d *drv)
		work   bool
	}{
		{"the comment was skipped", func(d *drv) {
			assert.Equal(t, ActionPolling, d.choose(elicitation.Skip).Kind, "the only comment skipped ends the flow")
		}, false},
		{"the comment was addressed", func(d *drv) {
			d.choose(elicitation.ApplyRecommendation)
			d.ev(EventCommentAddressed, EventData{ReplyText: "done"})
			d.ok(ServerPostReply)
			d.ok(ServerResolveThread)
		}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			d.poll(newPR().thread("T1", "bob", "a.go", 1, "use backoff"))
			d.ev(EventTaskComplete, EventData{Recommendation: "agree"})
			tt.handle(d)
			assert.Equal(t, tt.work, d.m.pos.Memory.AwaitVerdict)
			if tt.work {
				assert.NotEmpty(t, d.m.pos.Memory.WorkRound)
			}
		})
	}
}
