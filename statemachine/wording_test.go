package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// What the agent and the user read says what is so: why the monitor waits, what an ignored event
// did, what a choice led to.

func TestAWatchingMonitorSaysWhyItWaits(t *testing.T) {
	for _, tt := range []struct {
		name string
		f    func(f *prstatus.Facts)
		want string
	}{
		{"a fresh pull request", func(*prstatus.Facts) {}, "Nothing to do yet: waiting for review."},
		{"the base branch requires a review", func(f *prstatus.Facts) { f.ReviewDecision = "REVIEW_REQUIRED" },
			"Nothing to do yet: waiting for review; the base branch requires an approving review from a reviewer with write access."},
		{"a decision other than a required review", func(f *prstatus.Facts) { f.ReviewDecision = "CHANGES_REQUESTED" },
			"Nothing to do yet: waiting for review."},
		{"a thread waits for the reviewer", func(f *prstatus.Facts) { f.Threads.Waiting = make([]prstatus.ThreadFact, 1) },
			"Nothing to do yet: waiting for review; 1 thread waits for a reviewer's reply."},
		{"GitHub blocks the merge", func(f *prstatus.Facts) { f.Blocked = []string{"2 approving reviews are required"} },
			"Nothing to do yet: waiting for review; GitHub blocks the merge: 2 approving reviews are required."},
		{"auto-merge is on", func(f *prstatus.Facts) { f.AutoMerge = &prstatus.AutoMerge{EnabledBy: "dev"} },
			"Nothing to do yet: waiting for review; auto-merge is on: GitHub merges it once every requirement is met."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newPR().facts()
			tt.f(&f)
			assert.Equal(t, tt.want, quietReason(&f))
		})
	}
}

func TestAnEventWhileWatchingIsSaidToBeIgnoredExceptReady(t *testing.T) {
	for _, tt := range []struct {
		event Event
		want  string
	}{
		{EventReady, ""},
		{EventTaskComplete, "No task is in progress; task_complete ignored."},
		{EventPushCompleted, "No task is in progress; push_completed ignored."},
	} {
		t.Run(string(tt.event), func(t *testing.T) {
			d := start(t)
			d.poll(newPR())
			act := d.ev(tt.event, EventData{})
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Equal(t, tt.want, act.Message)
		})
	}
}

func TestLeavingTheMergeToTheUserSaysWhetherAutoMergeIsOff(t *testing.T) {
	for _, tt := range []struct {
		name string
		to   func(t *testing.T, d *drv)
		want string
	}{
		{"from the ready question", func(t *testing.T, d *drv) { requireAsk(t, d.poll(approvedPR()), elicitation.QReadyToMerge) },
			"Leaving the merge to you."},
		{"from the question that auto-merge is off", func(t *testing.T, d *drv) {
			autoMergeOn(t, d)
			requireAsk(t, d.poll(whenReadyPR()), elicitation.QAutoMergeOff)
		}, "Auto-merge is off: GitHub will not merge the pull request by itself. Leaving the merge to you."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			tt.to(t, d)
			act := d.choose(elicitation.HandleMyself)
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Equal(t, tt.want, act.Message)
		})
	}
}

// TestAPollWhoseNewsNeedsNobodyKeepsWatchingByItsOwnRow: running checks on a watched pull request
// are news the monitor takes note of (keep_watching, and only that), saying what it waits for.
func TestAPollWhoseNewsNeedsNobodyKeepsWatchingByItsOwnRow(t *testing.T) {
	d := start(t)
	act := d.poll(newPR().running())
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Equal(t, []Transition{TKeepWatching}, d.m.Fired())
	assert.NotEmpty(t, act.Message)
}
