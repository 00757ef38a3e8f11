package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// autoMergeOn brings d to auto-merge turned on for whenReadyPR, at c1.
func autoMergeOn(t *testing.T, d *drv) {
	t.Helper()
	requireAsk(t, d.poll(whenReadyPR()), elicitation.QMergeWhenReady, elicitation.AutoMerge, elicitation.Resume,
		elicitation.HandleMyself, elicitation.Stop)
	req := requireServer(t, d.choose(elicitation.AutoMerge), ServerEnableAutoMerge)
	require.Equal(t, sha("c1"), req.ExpectedHeadSHA)
	act := d.ok(ServerEnableAutoMerge)
	require.Equal(t, ActionPolling, act.Kind)
	require.NotNil(t, d.m.pos.Memory.AutoMerge)
}

// TestAutoMergeIsOfferedWhileChecksRunAndTurnedOnOnlyOnTheUsersChoice: approved, checks running,
// auto-merge allowed: the user is asked; only their own auto_merge turns it on, pinned to the head
// they saw and to what they were shown; then the monitor watches (no ready question while GitHub
// merges it by itself) until the pull request is merged.
func TestAutoMergeIsOfferedWhileChecksRunAndTurnedOnOnlyOnTheUsersChoice(t *testing.T) {
	d := start(t)
	act := d.poll(whenReadyPR())
	requireAsk(t, act, elicitation.QMergeWhenReady)
	assert.Contains(t, act.Question.Text, "GitHub can merge it by itself once they pass, at this head only")
	assert.Equal(t, "Merge automatically when the checks pass", act.Question.Label(elicitation.AutoMerge))
	d.reject(ChoiceInput(elicitation.AutoMerge), ErrNotTheUsersChoice)

	req := requireServer(t, d.choose(elicitation.AutoMerge), ServerEnableAutoMerge)
	assert.Equal(t, sha("c1"), req.ExpectedHeadSHA)
	require.NotNil(t, req.Shown)
	assert.Equal(t, []string{"carol"}, req.Shown.Approvers)
	assert.Equal(t, "squash", req.MergeMethod)
	act = d.ok(ServerEnableAutoMerge)
	assert.Contains(t, act.Message, "Auto-merge is on")

	act = d.poll(autoMergedPR())
	assert.Equal(t, ActionPolling, act.Kind, "checks still running, auto-merge on: watching")
	assert.Contains(t, act.Message, "auto-merge is on")
	green := approvedPR()
	green.s.AutoMergeAllowed, green.s.AutoMerge = true, &prstatus.AutoMerge{}
	act = d.poll(green)
	assert.Equal(t, ActionPolling, act.Kind, "green while GitHub merges it by itself: nobody is asked")
	green.s.State = prstatus.StateMerged
	assert.Equal(t, ActionMerged, d.poll(green).Kind)
}

// TestNewsTurnsAutoMergeOffAgainAndTellsTheUser: a new push, a request for changes, a failing check
// or a dismissed approval after the user turned auto-merge on: the server turns it off and asks the
// user, with what changed.
func TestNewsTurnsAutoMergeOffAgainAndTellsTheUser(t *testing.T) {
	for _, tt := range []struct {
		name string
		news func(*pr) *pr
		says string
	}{
		{"a new push", func(p *pr) *pr { return p.push("c2") }, "the head moved"},
		{"a request for changes", func(p *pr) *pr { return p.review("bob", prstatus.ReviewChangesRequested, "no") }, "bob requested changes"},
		{"a failing check", func(p *pr) *pr { return p.checks(check("test", "COMPLETED", "FAILURE", 1003, 102)) }, "failure"},
		{"a dismissed approval", func(p *pr) *pr { return p.review("carol", prstatus.ReviewDismissed, "") }, "carol's approval no longer stands"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			autoMergeOn(t, d)
			requireServer(t, d.poll(tt.news(autoMergedPR())), ServerDisableAutoMerge)
			assert.Nil(t, d.m.pos.Memory.AutoMerge)
			act := d.ok(ServerDisableAutoMerge)
			requireAsk(t, act, elicitation.QAutoMergeOff, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
			assert.Contains(t, act.Question.Text, "Auto-merge is off again")
			assert.Contains(t, act.Question.Text, tt.says)
			assert.Contains(t, act.Message, "Auto-merge is off again", "the agent is told too")
			act = d.choose(elicitation.Resume)
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Contains(t, act.Message, "Auto-merge is off", "an agent whose host showed the question is told too")
		})
	}
}

func TestAutoMergeTurnedOffOnGitHubIsTold(t *testing.T) {
	d := start(t)
	autoMergeOn(t, d)
	act := d.poll(whenReadyPR()) // auto-merge is gone on GitHub, nothing else changed
	requireAsk(t, act, elicitation.QAutoMergeOff)
	assert.Contains(t, act.Question.Text, "turned off on GitHub")
	assert.NotContains(t, act.Question.Text, "changed since", "nothing else changed")
	assert.Equal(t, ActionPolling, d.choose(elicitation.HandleMyself).Kind)
}

func TestAFailedTurnOffIsTriedAgainWithoutTheUsersConsent(t *testing.T) {
	d := start(t)
	autoMergeOn(t, d)
	d.poll(autoMergedPR().push("c2"))
	requireAsk(t, d.fail(ServerDisableAutoMerge, "502"), elicitation.QActionFailed)
	requireServer(t, d.send(ChoiceInput(elicitation.Retry)), ServerDisableAutoMerge) // turning it off merges nothing
}

func TestKeepWatchingAsksToMergeWhenTheChecksPass(t *testing.T) {
	d := start(t)
	d.poll(whenReadyPR())
	assert.Equal(t, ActionPolling, d.send(ChoiceInput(elicitation.Resume)).Kind)
	assert.Equal(t, ActionPolling, d.poll(whenReadyPR()).Kind, "not asked again while the checks run")
	green := approvedPR()
	green.s.AutoMergeAllowed = true
	requireAsk(t, d.poll(green), elicitation.QReadyToMerge, elicitation.Merge, elicitation.WaitForApprover, elicitation.Resume,
		elicitation.HandleMyself, elicitation.Stop)
}

// TestAutoMergeNotTurnedOnWhenThePullRequestChangedMeanwhile: nothing is turned on over a change
// the user did not see; the monitor says what changed (GitHub's words, quoted) or that the head
// moved, and watches.
func TestAutoMergeNotTurnedOnWhenThePullRequestChangedMeanwhile(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outcome Outcome
		says    string
		quotes  string
	}{
		{"a request for changes", Outcome{Kind: ServerEnableAutoMerge, Changed: []string{"bob requested changes"},
			Shown: &prstatus.MergeView{Head: sha("c1"), State: prstatus.StateOpen}}, "changed since you were asked", "bob requested changes"},
		{"a new head", Outcome{Kind: ServerEnableAutoMerge, HeadMoved: true}, "the head moved since you chose it", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			d.poll(whenReadyPR())
			d.choose(elicitation.AutoMerge)
			act := d.send(OutcomeInput(tt.outcome))
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Contains(t, act.Message, "Auto-merge was not turned on")
			assert.Contains(t, act.Message, tt.says)
			if tt.quotes == "" {
				assert.NotContains(t, act.Message, "untrusted GitHub text", "nothing to quote")
			} else {
				assert.Contains(t, act.Message, tt.quotes)
			}
			assert.Nil(t, d.m.pos.Memory.AutoMerge)
		})
	}
}

// TestARefusedAutoMergeOffersTheMergeNow: GitHub refuses auto-merge on a pull request that can merge
// at once ("clean status"): the user may merge it now.
func TestARefusedAutoMergeOffersTheMergeNow(t *testing.T) {
	d := start(t)
	d.poll(whenReadyPR())
	d.choose(elicitation.AutoMerge)
	act := d.send(OutcomeInput(Outcome{Kind: ServerEnableAutoMerge, Refused: true, Error: "Pull request is in clean status"}))
	requireAsk(t, act, elicitation.QMergeRefused, elicitation.Merge, elicitation.WaitForApprover, elicitation.Resume,
		elicitation.HandleMyself, elicitation.Stop)
	requireServer(t, d.choose(elicitation.Merge), ServerMerge)
}

// TestAMergeQueueTakesTheMergeChoice: where the base branch merges through a merge queue, merge
// adds the pull request to the queue (pinned to the head the user saw); the monitor watches until
// GitHub merges it, and asks nobody meanwhile.
func TestAMergeQueueTakesTheMergeChoice(t *testing.T) {
	d := start(t)
	act := d.poll(queuePR())
	requireAsk(t, act, elicitation.QReadyToMerge)
	assert.Contains(t, act.Question.Text, "merges through a merge queue")
	d.reject(ChoiceInput(elicitation.Merge), ErrNotTheUsersChoice)
	req := requireServer(t, d.choose(elicitation.Merge), ServerEnqueue)
	assert.Equal(t, sha("c1"), req.ExpectedHeadSHA)
	act = d.ok(ServerEnqueue)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Contains(t, act.Message, "merge queue")
	queued := queuePR()
	queued.s.InMergeQueue = true
	act = d.poll(queued)
	assert.Equal(t, ActionPolling, act.Kind, "queued: nobody is asked")
	assert.Contains(t, act.Message, "in the merge queue")
	queued.s.State = prstatus.StateMerged
	assert.Equal(t, ActionMerged, d.poll(queued).Kind)
}

func TestAutoMergeIsOfferedOnTheReadyQuestionWhereGitHubHoldsTheMerge(t *testing.T) {
	d := start(t)
	act := d.poll(heldPR())
	requireAsk(t, act, elicitation.QReadyToMerge, elicitation.Merge, elicitation.AutoMerge, elicitation.WaitForApprover,
		elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	requireServer(t, d.choose(elicitation.AutoMerge), ServerEnableAutoMerge)
}

// TestARetriedAutoMergeIsAMerge: trying a failed auto-merge again needs the user's own word.
func TestARetriedAutoMergeIsAMerge(t *testing.T) {
	d := start(t)
	d.poll(whenReadyPR())
	d.choose(elicitation.AutoMerge)
	requireAsk(t, d.fail(ServerEnableAutoMerge, "502"), elicitation.QActionFailed)
	d.reject(ChoiceInput(elicitation.Retry), ErrNotTheUsersChoice)
	requireServer(t, d.choose(elicitation.Retry), ServerEnableAutoMerge)
}
