package statemachine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

func crPR() *pr {
	return newPR().review("bob", prstatus.ReviewChangesRequested, "needs work")
}

func TestRefineWithoutACommitAsksInsteadOfFiringAgain(t *testing.T) {
	p := crPR()
	d := start(t)
	requireExecute(t, d.poll(p), TaskRefine)
	d.ev(EventTaskComplete, EventData{}) // the agent only replied: no substantive commit
	act := d.poll(p)
	requireAsk(t, act, elicitation.QRefineStalled, elicitation.RefineAgain, elicitation.TreatAsAnswered, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "bob")

	assert.Equal(t, ActionPolling, d.choose(elicitation.TreatAsAnswered).Kind)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "an answered round is not raised again")

	// A merge of the base branch changes the head but answers nothing; the round is still
	// acknowledged by key only for its head, so it comes back, and still asks rather than fires.
	requireAsk(t, d.poll(p.mergeBase("m1")), elicitation.QRefineStalled)
	requireExecute(t, d.choose(elicitation.RefineAgain), TaskRefine)
}

func TestRefineRoundsTwoAndThree(t *testing.T) {
	p := crPR()
	d := start(t)
	requireExecute(t, d.poll(p), TaskRefine)
	d.ev(EventPushCompleted, EventData{})
	req := requireServer(t, d.poll(p.push("fix1")), ServerRequestReview)
	assert.Equal(t, []string{"bob"}, req.Reviewers, "answered: bob is asked to re-review")
	assert.Equal(t, ActionPolling, d.ok(ServerRequestReview).Kind)

	p.review("bob", prstatus.ReviewChangesRequested, "still wrong")
	act := d.poll(p)
	requireExecute(t, act, TaskRefine)
	assert.Equal(t, "still wrong", string(act.Context.Reviews[0].Body))
	d.ev(EventPushCompleted, EventData{})
	requireServer(t, d.poll(p.push("fix2")), ServerRequestReview)
	d.ok(ServerRequestReview)
	p.review("bob", prstatus.ReviewChangesRequested, "one more")
	requireExecute(t, d.poll(p), TaskRefine, EventPushCompleted, EventTaskComplete)
}

func TestRefineCooldownAndAutomaticLimit(t *testing.T) {
	p := crPR()
	d := start(t)
	requireExecute(t, d.poll(p), TaskRefine)
	// The agent abandons the task: it says "ready" (a restart), nothing was pushed, and the user
	// resumes monitoring from the recovery question.
	requireServer(t, d.ev(EventReady, EventData{}), ServerFetchHead)
	requireAsk(t, d.head(sha("c1")), elicitation.QRecovery)
	d.choose(elicitation.Resume)

	// Only a head change re-raises the round; within the cooldown it is not fired again.
	p.mergeBase("m1")
	act := d.poll(p)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Contains(t, act.Message, "cooling down")
	// After the cooldown it fires a second time, and that is the last automatic dispatch.
	d.now = d.now.Add(8 * time.Minute)
	requireExecute(t, d.poll(p), TaskRefine)
	requireServer(t, d.ev(EventReady, EventData{}), ServerFetchHead)
	d.head(sha("m1"))
	d.choose(elicitation.Resume)
	p.mergeBase("m2")
	d.now = d.now.Add(8 * time.Minute)
	requireAsk(t, d.poll(p), elicitation.QRefineStalled)
}

func TestChangesRequestedWithGreenCIAndAnotherApprovalNeverAsksToMerge(t *testing.T) {
	p := newPR().review("carol", prstatus.ReviewApproved, "lgtm").review("bob", prstatus.ReviewChangesRequested, "no")
	d := start(t)
	requireExecute(t, d.poll(p), TaskRefine)
	d.ev(EventPushCompleted, EventData{})
	p.push("fix").review("carol", prstatus.ReviewApproved, "still lgtm")
	requireServer(t, d.poll(p), ServerRequestReview)
	d.ok(ServerRequestReview)
	for range 3 {
		act := d.poll(p)
		assert.Equal(t, ActionPolling, act.Kind, "bob has not re-reviewed: no merge question")
		assert.NotEqual(t, NodeReadyAsk, d.m.pos.Node)
	}
}

func TestCIFailureLogsInvestigationFixAndGreen(t *testing.T) {
	p := newPR().failing()
	d := start(t)
	req := requireServer(t, d.poll(p), ServerFetchCILogs)
	require.Len(t, req.Checks, 1)
	assert.Equal(t, int64(1001), req.Checks[0].JobID)

	act := d.send(OutcomeInput(Outcome{Kind: ServerFetchCILogs, OK: true, Logs: []CheckLog{{Check: "test", JobID: 1001, Tail: "FAIL TestRetry"}}}))
	requireExecute(t, act, TaskInvestigateCIFailure, EventInvestigationComplete)
	require.Len(t, act.Context.Logs, 1)
	assert.Contains(t, mustJSON(t, act.Context.Logs), "untrusted GitHub text", "logs are fenced")
	assert.True(t, act.Context.FailedChecks[0].Rerunnable)

	act = d.ev(EventInvestigationComplete, EventData{Findings: "timeout too short", SuggestedFix: "raise it to 5s", IssueType: "code"})
	requireAsk(t, act, elicitation.QCIResults, elicitation.ApplyFix, elicitation.RerunFailed, elicitation.RerunAll, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "raise it to 5s")

	act = d.choose(elicitation.ApplyFix)
	requireExecute(t, act, TaskApplyFix, EventPushCompleted)
	assert.Equal(t, "raise it to 5s", act.Context.SuggestedFix)
	assert.Equal(t, ActionPolling, d.ev(EventPushCompleted, EventData{}).Kind)
	assert.Equal(t, ActionPolling, d.poll(p.push("c2").green()).Kind)
}

func TestRerunIsDeferredUntilChecksFinish(t *testing.T) {
	p := newPR().checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("e2e", "IN_PROGRESS", "", 1005, 105))
	d := start(t)
	d.poll(p)
	d.ok(ServerFetchCILogs)
	d.ev(EventInvestigationComplete, EventData{Findings: "flaky", IssueType: "flaky"})
	act := d.choose(elicitation.RerunFailed)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Equal(t, NodeCIRerunDeferred, d.m.pos.Node)

	act = d.poll(p)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Contains(t, act.Message, "in flight")

	p.checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("e2e", "COMPLETED", "FAILURE", 1005, 105))
	req := requireServer(t, d.poll(p), ServerRerunFailed)
	assert.Equal(t, []int64{101, 105}, req.RunIDs)
	act = d.ok(ServerRerunFailed)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Equal(t, NodePolling, d.m.pos.Node)
}

func TestDeferredRerunIsDroppedWhenTheHeadMovesOrFailuresClear(t *testing.T) {
	tests := []struct {
		name  string
		after func(*pr)
	}{
		{"head moved", func(p *pr) { p.push("c2").running() }},
		{"failures cleared", func(p *pr) { p.green() }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPR().checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("e2e", "IN_PROGRESS", "", 1005, 105))
			d := start(t)
			d.poll(p)
			d.ok(ServerFetchCILogs)
			d.ev(EventInvestigationComplete, EventData{})
			d.choose(elicitation.RerunAll)
			tt.after(p)
			act := d.poll(p)
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Equal(t, NodePolling, d.m.pos.Node)
			assert.Nil(t, d.m.pos.CI)
		})
	}
}

func TestExternalCIIsReportedWithoutARerun(t *testing.T) {
	p := newPR().checks(prstatus.Check{Kind: prstatus.KindStatusContext, Name: "buildkite", State: "FAILURE", URL: "https://buildkite.example/1"})
	d := start(t)
	act := d.poll(p)
	requireExecute(t, act, TaskInvestigateCIFailure)
	assert.False(t, act.Context.FailedChecks[0].Rerunnable)
	act = d.ev(EventInvestigationComplete, EventData{Findings: "?"})
	requireAsk(t, act, elicitation.QCIResults, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "external CI")
}

func TestCancelledChecksHaveTheirOwnQuestion(t *testing.T) {
	p := newPR().checks(check("test", "COMPLETED", "CANCELLED", 1001, 101))
	d := start(t)
	act := d.poll(p)
	requireAsk(t, act, elicitation.QCICancelled, elicitation.RerunFailed, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	assert.Equal(t, ActionPolling, d.choose(elicitation.Resume).Kind)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "acknowledged for this head")
}

func TestFailedRerunAsksAndRetries(t *testing.T) {
	p := newPR().failing()
	d := start(t)
	d.poll(p)
	d.ok(ServerFetchCILogs)
	d.ev(EventInvestigationComplete, EventData{})
	d.choose(elicitation.RerunFailed)
	d.poll(p)
	act := d.fail(ServerRerunFailed, "HTTP 403: Resource not accessible by integration")
	requireAsk(t, act, elicitation.QActionFailed, elicitation.Retry, elicitation.HandleMyself, elicitation.Stop)
	requireServer(t, d.choose(elicitation.Retry), ServerRerunFailed)
}

func TestConflictRebaseAndAcknowledge(t *testing.T) {
	p := newPR().conflict()
	d := start(t)
	act := d.poll(p)
	requireAsk(t, act, elicitation.QMergeConflict, elicitation.Rebase, elicitation.HandleMyself, elicitation.Stop)
	act = d.choose(elicitation.Rebase)
	requireExecute(t, act, TaskRebase, EventPushCompleted)
	assert.Equal(t, sha("c1"), act.Context.HeadSnapshot)
	assert.Equal(t, ActionPolling, d.ev(EventPushCompleted, EventData{}).Kind)

	d.poll(p) // still conflicting on the same head: asked again
	assert.Equal(t, ActionPolling, d.choose(elicitation.HandleMyself).Kind)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "acknowledged for this head")
	requireAsk(t, d.poll(p.push("c2")), elicitation.QMergeConflict)
}

func approvedPR() *pr { return newPR().review("carol", prstatus.ReviewApproved, "lgtm") }

func TestReadyMergeOnlyOnTheUsersChoice(t *testing.T) {
	d := start(t)
	act := d.poll(approvedPR())
	requireAsk(t, act, elicitation.QReadyToMerge, elicitation.Merge, elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	req := requireServer(t, d.choose(elicitation.Merge), ServerMerge)
	assert.Equal(t, sha("c1"), req.ExpectedHeadSHA, "the merge is pinned to the head the user saw")
	assert.Equal(t, "squash", req.MergeMethod)
	assert.False(t, req.Admin)
	act = d.send(OutcomeInput(Outcome{Kind: ServerMerge, OK: true, SHA: sha("m")}))
	assert.Equal(t, ActionMerged, act.Kind)
	assert.Equal(t, NodeStopped, d.m.pos.Node)
}

func TestMergeRefusedOffersWhatRemains(t *testing.T) {
	tests := []struct {
		name  string
		admin bool
		want  []elicitation.Value
	}{
		{"no admin override unless configured", false, []elicitation.Value{elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop}},
		{"admin override when configured", true, []elicitation.Value{elicitation.MergeAdmin, elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.AllowAdminMerge = tt.admin
			d := newDriver(t, cfg)
			d.poll(approvedPR())
			d.choose(elicitation.Merge)
			act := d.send(OutcomeInput(Outcome{Kind: ServerMerge, Refused: true, Error: "At least 2 approving reviews are required"}))
			requireAsk(t, act, elicitation.QMergeRefused, tt.want...)
			assert.Contains(t, act.Question.Text, "2 approving reviews")
			if tt.admin {
				req := requireServer(t, d.choose(elicitation.MergeAdmin), ServerMerge)
				assert.True(t, req.Admin)
			}
		})
	}
}

func TestMergeNotAttemptedWhenTheHeadMoved(t *testing.T) {
	d := start(t)
	d.poll(approvedPR())
	d.choose(elicitation.Merge)
	act := d.send(OutcomeInput(Outcome{Kind: ServerMerge, HeadMoved: true}))
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Contains(t, act.Message, "nothing was merged")
}

func TestWaitForAnotherApprover(t *testing.T) {
	p := approvedPR()
	d := start(t)
	d.poll(p)
	assert.Equal(t, ActionPolling, d.choose(elicitation.WaitForApprover).Kind)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "not asked again with the same approvals")
	requireAsk(t, d.poll(p.review("dave", prstatus.ReviewApproved, "me too")), elicitation.QReadyToMerge)
}

func TestStaleApprovalReminder(t *testing.T) {
	p := approvedPR().push("c2")
	d := start(t)
	act := d.poll(p)
	requireAsk(t, act, elicitation.QStaleApproval, elicitation.RequestReReview, elicitation.SkipReminder, elicitation.HandleMyself, elicitation.Stop)
	req := requireServer(t, d.choose(elicitation.RequestReReview), ServerRequestReview)
	assert.Equal(t, []string{"carol"}, req.Reviewers)
	assert.Equal(t, ActionPolling, d.ok(ServerRequestReview).Kind)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "reminded once per head")
}

func TestMergedAndClosedEndTheMonitor(t *testing.T) {
	d := start(t)
	p := newPR()
	p.s.State = prstatus.StateMerged
	assert.Equal(t, ActionMerged, d.poll(p).Kind)
	d = start(t)
	p.s.State = prstatus.StateClosed
	act := d.poll(p)
	assert.Equal(t, ActionStop, act.Kind)
	assert.Contains(t, act.Message, "closed")
}

func TestCatchUpReRequestsAnsweredReviewersOncePerHead(t *testing.T) {
	p := crPR().push("fix") // bob's request was answered by a commit, e.g. before a restart
	d := start(t)
	req := requireServer(t, d.poll(p), ServerRequestReview)
	assert.Equal(t, []string{"bob"}, req.Reviewers)
	assert.Equal(t, ActionPolling, d.fail(ServerRequestReview, "422").Kind, "best effort: no question")
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "not retried for the same head")
}

// A bot's thread the author answered by hand (no prmonitor marker: Derive's answered_by_us is
// false) is theirs to resolve; only a reply prmonitor posted lets the catch-up resolve it.
func TestCatchUpLeavesABotThreadAnsweredByHand(t *testing.T) {
	p := newPR().thread("T1", "copilot-pull-request-reviewer[bot]", "a.go", 1, "nit").reply("T1", "dev", "kept on purpose")
	d := start(t)
	act := d.poll(p)
	assert.Equal(t, ActionPolling, act.Kind, "nothing to resolve: %+v", act.Server)
	assert.NotContains(t, d.m.Fired(), TCatchUpResolveBotThread)
}

func TestCatchUpResolvesBotThreadsWeAnswered(t *testing.T) {
	marker := prstatus.Marker{Round: "r1", Thread: "T1", Kind: prstatus.ReplyReplied}.String()
	p := newPR().thread("T1", "copilot-pull-request-reviewer[bot]", "a.go", 1, "nit").reply("T1", "dev", "kept on purpose "+marker)
	d := start(t)
	req := requireServer(t, d.poll(p), ServerResolveThread)
	assert.Equal(t, "T1", req.ThreadID)
	d.ok(ServerResolveThread)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "tried once")
}
