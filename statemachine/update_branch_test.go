package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// behindPR is approved and green, but its branch is behind a base the repository requires it to
// be up to date with (GitHub's merge state BEHIND).
func behindPR() *pr { p := approvedPR(); p.s.MergeStateStatus = "BEHIND"; return p }

func TestUpdateBranchIsOfferedOnlyWhenTheBranchIsBehind(t *testing.T) {
	tests := []struct {
		name  string
		pr    *pr
		offer bool
	}{
		{"clean", approvedPR(), false},
		{"behind", behindPR(), true},
		{"blocked for another reason", func() *pr { p := approvedPR(); p.s.MergeStateStatus = "BLOCKED"; return p }(), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := start(t)
			act := d.poll(tc.pr)
			require.Equal(t, ActionAskUser, act.Kind)
			require.Equal(t, elicitation.QReadyToMerge, act.Question.ID)
			assert.Equal(t, tc.offer, act.Question.Offers(elicitation.UpdateBranch))
			assert.True(t, act.Question.Offers(elicitation.Merge), "merging stays the user's choice")
			if tc.offer {
				assert.Contains(t, act.Question.Text, "behind its base branch")
			}
		})
	}
}

func TestChoosingUpdateBranchAsksTheServerToUpdateAtTheHeadTheUserSawAndNeverToMerge(t *testing.T) {
	d := start(t)
	d.poll(behindPR())

	req := requireServer(t, d.choose(elicitation.UpdateBranch), ServerUpdateBranch)
	assert.Equal(t, sha("c1"), req.ExpectedHeadSHA)
	assert.Empty(t, req.MergeMethod, "an update is no merge")
	assert.Equal(t, NodeReadyUpdatingBranch, d.m.Position().Node)

	act := d.ok(ServerUpdateBranch)
	assert.Equal(t, ActionPolling, act.Kind)
	assert.True(t, act.PollNow)
	assert.Contains(t, act.Message, "checks run again")
	assert.Equal(t, NodePolling, d.m.Position().Node)

	// GitHub updates the branch in the background: a poll that still shows the old head does not
	// ask again.
	again := d.poll(behindPR())
	assert.NotEqual(t, ActionAskUser, again.Kind)
}

func TestAMovedHeadIsRefusedCleanlyAndTheNewHeadIsWatched(t *testing.T) {
	d := start(t)
	d.poll(behindPR())
	d.choose(elicitation.UpdateBranch)

	act := d.send(OutcomeInput(Outcome{Kind: ServerUpdateBranch, HeadMoved: true, Error: "the head moved"}))

	assert.Equal(t, ActionPolling, act.Kind)
	assert.Contains(t, act.Message, "nothing was changed")
	assert.Equal(t, NodePolling, d.m.Position().Node)
}

func TestAFailedUpdateCanBeRetriedAsAnUpdateNotAMerge(t *testing.T) {
	d := start(t)
	d.poll(behindPR())
	d.choose(elicitation.UpdateBranch)
	act := d.fail(ServerUpdateBranch, "502")
	require.Equal(t, elicitation.QActionFailed, act.Question.ID)

	req := requireServer(t, d.choose(elicitation.Retry), ServerUpdateBranch)
	assert.Equal(t, sha("c1"), req.ExpectedHeadSHA)
}

func TestAMergeRefusedAsBehindOffersTheUpdate(t *testing.T) {
	d := start(t)
	d.poll(behindPR())
	d.choose(elicitation.Merge)

	act := d.send(OutcomeInput(Outcome{Kind: ServerMerge, Refused: true, Error: "Head branch is not up to date with the base branch"}))

	require.Equal(t, elicitation.QMergeRefused, act.Question.ID)
	assert.True(t, act.Question.Offers(elicitation.UpdateBranch))
	requireServer(t, d.choose(elicitation.UpdateBranch), ServerUpdateBranch)
}

func TestAConflictingBranchIsNotOfferedAnUpdate(t *testing.T) {
	f := behindPR().facts()
	f.Mergeable = prstatus.MergeableConflict
	assert.False(t, branchBehind(&f))
}
