package statemachine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// stackedOn bases the pull request on #5's branch part-1, whose head (the base tip) is tip.
func (p *pr) stackedOn(tip string) *pr {
	p.s.BaseRef, p.s.BaseOID, p.s.StackedOn = "part-1", sha(tip), &prstatus.StackBase{Number: 5, HeadOID: sha(tip)}
	return p
}

// retargeted is the pull request after #5 merged (squashed into main at ee5) and GitHub moved it
// onto main.
func (p *pr) retargeted() *pr {
	p.s.BaseRef, p.s.BaseOID, p.s.StackedOn = "main", sha("ee5"), nil
	return p
}

// A stacked pull request's merge question says where it merges, and its default waits for the
// lower one; the wait holds while it is stacked.
func TestAStackedPullRequestsMergeQuestionWaitsForTheLowerOne(t *testing.T) {
	for _, answer := range []string{"wait", "decline"} {
		t.Run(answer, func(t *testing.T) {
			p := approvedPR().stackedOn("aa1")
			d := start(t)
			act := d.poll(p)
			requireAsk(t, act, elicitation.QReadyStacked, elicitation.WaitForLower, elicitation.Merge, elicitation.HandleMyself, elicitation.Stop)
			assert.Contains(t, act.Question.Text, "stacked on #5: merging it now merges it into #5's branch")
			if answer == "wait" {
				act = d.choose(elicitation.WaitForLower)
			} else {
				act = d.send(DeclineInput())
			}
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Equal(t, 5, d.m.Position().Memory.LowerWait)
			act = d.poll(p)
			assert.Equal(t, ActionPolling, act.Kind, "no question while #5 is open: %+v", act)
			assert.Contains(t, act.Message, "waiting for #5 to merge first")
		})
	}
	t.Run("merge now, into the lower one's branch", func(t *testing.T) {
		d := start(t)
		requireAsk(t, d.poll(approvedPR().stackedOn("aa1")), elicitation.QReadyStacked)
		req := requireServer(t, d.choose(elicitation.Merge), ServerMerge)
		assert.Equal(t, sha("c1"), req.ExpectedHeadSHA)
	})
}

// When the lower pull request merges and GitHub retargets this one, the agent gets the exact
// rebase: onto the new base's tip, from the old base's tip (the lower one's head as last seen).
func TestARetargetedStackGetsTheExactRebase(t *testing.T) {
	p := newPR().stackedOn("aa1")
	d := start(t)
	assert.Equal(t, ActionPolling, d.poll(p).Kind)
	p.stackedOn("bb2") // the lower one moves on: this one is still built on aa1
	assert.Equal(t, ActionPolling, d.poll(p).Kind)
	require.Equal(t, &StackRecord{Lower: 5, BaseRef: "part-1", Tip: sha("aa1"), Head: sha("c1")}, d.m.Position().Memory.Stack)
	p.push("cc2").green() // rebased onto the lower one's new head
	assert.Equal(t, ActionPolling, d.poll(p).Kind)
	require.Equal(t, &StackRecord{Lower: 5, BaseRef: "part-1", Tip: sha("bb2"), Head: sha("cc2")}, d.m.Position().Memory.Stack)

	act := d.poll(p.retargeted())
	require.Equal(t, ActionExecute, act.Kind, "%+v", act)
	assert.Equal(t, TaskRebase, act.Task)
	assert.Contains(t, act.Context.Note, "`git rebase --onto "+sha("ee5")+" "+sha("bb2")+"`")
	assert.Contains(t, act.Context.Note, "`git fetch origin main`")
	assert.Nil(t, d.m.Position().Memory.Stack)

	p.push("dd3")
	assert.Equal(t, ActionPolling, d.ev(EventPushCompleted, EventData{}).Kind)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "rebased: nothing more")
}

// A new base branch whose name is not safe in a command is not pasted into one; commit ids that
// are not commit ids give the general rebase instead.
func TestTheStackRebaseNoteTakesOnlySafeRefsAndCommitIDs(t *testing.T) {
	old := &StackRecord{Lower: 5, BaseRef: "part-1", Tip: sha("aa1")}
	f := &prstatus.Facts{BaseRef: "main; rm -rf /", BaseSHA: sha("ee5")}
	note := stackRebaseNote(7, old, f)
	assert.Contains(t, note, "`git rebase --onto "+sha("ee5")+" "+sha("aa1")+"`")
	assert.NotContains(t, note, "rm -rf")
	assert.Contains(t, note, "never paste it into a shell")

	f = &prstatus.Facts{BaseRef: "main", BaseSHA: "not-a-commit"}
	note = stackRebaseNote(7, old, f)
	assert.NotContains(t, note, "--onto")
	assert.True(t, strings.HasPrefix(note, "#5, which this pull request was stacked on, is gone"))
}

// A stack that ends without a retarget (the lower one closed, the branch kept) is forgotten.
func TestAStackThatEndsWithoutARetargetIsForgotten(t *testing.T) {
	p := newPR().stackedOn("aa1")
	d := start(t)
	d.poll(p)
	p.s.StackedOn = nil
	assert.Equal(t, ActionPolling, d.poll(p).Kind)
	assert.Nil(t, d.m.Position().Memory.Stack)
}
