package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// The merge request carries what the user was shown; when the executor finds the pull request
// changed (a reviewer requested changes on the same head after the question was asked), nothing is
// merged and the user is asked again, told what changed; a merge chosen then is pinned to the new
// view.
func TestAMergeOverAChangeTheUserNeverSawAsksAgain(t *testing.T) {
	p := approvedPR()
	d := start(t)
	requireAsk(t, d.poll(p), elicitation.QReadyToMerge)
	req := requireServer(t, d.choose(elicitation.Merge), ServerMerge)
	require.NotNil(t, req.Shown, "the merge carries what the user was shown")
	assert.Equal(t, sha("c1"), req.Shown.Head)
	assert.Equal(t, []string{"carol"}, req.Shown.Approvers)
	assert.Empty(t, req.Shown.ChangesRequested)

	now := p.review("bob", prstatus.ReviewChangesRequested, "wait").facts()
	view := prstatus.ViewForMerge(&now)
	changed := req.Shown.Changes(&now)
	require.Equal(t, []string{"bob requested changes"}, changed)
	act := d.send(OutcomeInput(Outcome{Kind: ServerMerge, Changed: changed, Shown: &view}))
	requireAsk(t, act, elicitation.QReadyToMerge, elicitation.Merge, elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "Not merged")
	assert.Contains(t, act.Question.Text, "bob requested changes")

	again := requireServer(t, d.choose(elicitation.Merge), ServerMerge)
	assert.Equal(t, &view, again.Shown, "the user has now seen bob's request")
	assert.Equal(t, ActionMerged, d.send(OutcomeInput(Outcome{Kind: ServerMerge, OK: true})).Kind)
}

func TestAMergeOfAPullRequestThatEndedMeanwhileWatchesIt(t *testing.T) {
	p := approvedPR()
	d := start(t)
	d.poll(p)
	requireServer(t, d.choose(elicitation.Merge), ServerMerge)
	view := prstatus.MergeView{Head: sha("c1"), State: prstatus.StateMerged}
	act := d.send(OutcomeInput(Outcome{Kind: ServerMerge, Changed: []string{"the pull request is merged now"}, Shown: &view}))
	assert.Equal(t, ActionPolling, act.Kind)
	assert.Contains(t, act.Message, "Not merged")
}

// A reviewer whose thread waits for their reply approves the pull request: the approval settles
// the thread, the server resolves it, and the ready question says so.
func TestAnApprovalSettlesTheThreadThatWaitedForTheReviewer(t *testing.T) {
	p := newPR().thread("T1", "bob", "retry.go", 3, "why a constant?").reply("T1", "dev", "it is shared")
	d := start(t)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "the thread waits for bob")

	p.review("bob", prstatus.ReviewApproved, "ok")
	req := requireServer(t, d.poll(p), ServerResolveThread)
	assert.Equal(t, "T1", req.ThreadID)
	assert.Equal(t, "resolve a thread whose reviewer approved after our reply", req.Describe, "in the server's words, naming no one")
	require.Equal(t, ActionPolling, d.ok(ServerResolveThread).Kind)

	act := d.poll(p.resolve("T1"))
	requireAsk(t, act, elicitation.QReadyToMerge)
	assert.Contains(t, act.Question.Text, "The reviewer approved after our reply on 1 resolved thread")
	outside, ok := Outside(act.Question.Text)
	require.True(t, ok)
	assert.NotContains(t, outside, "bob", "the reviewer is named inside the fence only")
	assert.Contains(t, act.Question.Text, "resolved, approved after our reply: bob on retry.go:3")
}

// Tried once: a resolve GitHub refuses is not repeated every poll.
func TestASettledThreadIsResolvedOnce(t *testing.T) {
	p := newPR().thread("T1", "bob", "retry.go", 3, "why?").reply("T1", "dev", "because").review("bob", prstatus.ReviewApproved, "ok")
	d := start(t)
	requireServer(t, d.poll(p), ServerResolveThread)
	d.fail(ServerResolveThread, "HTTP 403")
	act := d.poll(p)
	requireAsk(t, act, elicitation.QReadyToMerge, elicitation.Merge, elicitation.WaitForApprover, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	assert.Contains(t, act.Question.Text, "waits for a reviewer's reply", "still open: the warning stands")
}
