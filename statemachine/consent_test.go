package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

// TestAMergeIsTakenOnlyFromTheUsersOwnAnswer: a choice that merges is taken from the user (their
// pick in the host's prompt) or from the agent relaying a question the host could not show; from
// anyone else (the agent answering a question the host shows, a model reading free text) it is
// refused and nothing moves. Every other choice is taken from anyone.
func TestAMergeIsTakenOnlyFromTheUsersOwnAnswer(t *testing.T) {
	for _, tt := range []struct {
		name string
		by   AnsweredBy
		ok   bool
	}{
		{"the agent's own answer", "", false},
		{"the user's pick in the prompt", ByUser, true},
		{"the agent relaying a question the host could not show", ByRelay, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			requireAsk(t, d.poll(approvedPR()), elicitation.QReadyToMerge)
			in := ChoiceInput(elicitation.Merge).From(tt.by)
			if !tt.ok {
				d.reject(in, ErrNotTheUsersChoice)
				assert.Equal(t, NodeReadyAsk, d.m.pos.Node, "the question stays open")
				d.send(ChoiceInput(elicitation.WaitForApprover)) // any other choice is anyone's to relay
				assert.Equal(t, NodePolling, d.m.pos.Node)
				return
			}
			requireServer(t, d.send(in), ServerMerge)
		})
	}
}

// TestARetryOfAFailedMergeIsAMerge: trying a failed merge again merges, so it too is the user's
// alone; trying other failed work again is anyone's.
func TestARetryOfAFailedMergeIsAMerge(t *testing.T) {
	d := start(t)
	d.poll(approvedPR())
	d.choose(elicitation.Merge)
	requireAsk(t, d.send(OutcomeInput(Outcome{Kind: ServerMerge, Error: "connection reset"})), elicitation.QActionFailed)
	d.reject(ChoiceInput(elicitation.Retry), ErrNotTheUsersChoice)
	requireServer(t, d.choose(elicitation.Retry), ServerMerge)

	d = start(t)
	d.poll(behindPR())
	d.choose(elicitation.UpdateBranch)
	d.fail(ServerUpdateBranch, "502")
	requireServer(t, d.send(ChoiceInput(elicitation.Retry)), ServerUpdateBranch) // an update never merges
}

// TestAnInterpretedMergeNeedsTheUsersOwnPick: free text the agent was handed to interpret cannot
// become a merge on the agent's word; the question goes back to the user.
func TestAnInterpretedMergeNeedsTheUsersOwnPick(t *testing.T) {
	d := start(t)
	d.poll(approvedPR())
	act := d.send(FreeformInput(FreeformAnswer{Text: "ship it once you're happy", Classification: elicitation.ClassifiedUnavailable}))
	requireExecute(t, act, TaskInterpretFreeform)
	assert.Equal(t, []elicitation.Value{elicitation.Merge}, act.Context.Freeform.UserOnly, "the agent is told which choice is not its to send")
	assert.Contains(t, act.Instructions, "user_only")
	d.reject(ChoiceInput(elicitation.Merge), ErrNotTheUsersChoice)
	requireAsk(t, d.ev(EventTaskComplete, EventData{}), elicitation.QReadyToMerge)
	requireServer(t, d.choose(elicitation.Merge), ServerMerge)
}

// TestNeedsUserNamesTheChoicesThatMerge: the choices that merge are the user's alone, on the open
// question and on the question free text interrupted while the agent interprets it.
func TestNeedsUserNamesTheChoicesThatMerge(t *testing.T) {
	for _, tt := range []struct {
		name string
		to   func(d *drv)
	}{
		{"the ready question open", func(d *drv) { d.poll(approvedPR()) }},
		{"free text about the ready question being interpreted", func(d *drv) {
			d.poll(approvedPR())
			requireExecute(t, d.send(FreeformInput(FreeformAnswer{Text: "ship it", Classification: elicitation.ClassifiedUnavailable})),
				TaskInterpretFreeform)
			require.Nil(t, d.m.pos.Question, "the question waits in the free-text state")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			tt.to(d)
			pos := d.m.Position()
			for _, v := range []elicitation.Value{elicitation.Merge, elicitation.MergeAdmin, elicitation.AutoMerge} {
				assert.True(t, pos.NeedsUser(v), v)
			}
			for _, v := range []elicitation.Value{elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop,
				elicitation.UpdateBranch, elicitation.Snooze, elicitation.Retry} {
				assert.False(t, pos.NeedsUser(v), v)
			}
		})
	}
	require.False(t, Position{}.NeedsUser(elicitation.Merge), "no question open: nothing to take")
}
