package statemachine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
)

func TestPriorAttemptIsAbsentOnAFreshPRAndCarriesTheVerdictAfterARejectedRound(t *testing.T) {
	p := crPR()
	d := start(t)
	act := d.poll(p)
	requireExecute(t, act, TaskRefine)
	assert.Nil(t, act.Context.PriorAttempt, "a fresh PR has no prior attempt")

	d.ev(EventPushCompleted, EventData{})
	requireServer(t, d.poll(p.push("fix1")), ServerRequestReview)
	d.ok(ServerRequestReview)
	p.review("bob", prstatus.ReviewChangesRequested, "Still wrong: the retry loop never stops.")
	act = d.poll(p)
	requireExecute(t, act, TaskRefine)
	pa := act.Context.PriorAttempt
	require.NotNil(t, pa, "the second round carries the reviewer's verdict on the first")
	assert.Equal(t, "bob", pa.Reviewer)
	assert.False(t, pa.Approved)
	assert.Equal(t, "CHANGES_REQUESTED", pa.State)
	assert.Equal(t, "retries", pa.Branch)
	assert.Contains(t, string(pa.Feedback), "Still wrong: the retry loop never stops.", "verbatim")
	raw := mustJSON(t, act.Context.PriorAttempt)
	assert.Contains(t, raw, "untrusted GitHub text", "the reviewer's words are fenced")
	for _, diffish := range []string{"diff", "patch", "@@", "+++"} {
		assert.NotContains(t, strings.ToLower(raw), diffish, "a verdict, never the prior diff")
	}
}

func TestAThreadRepeatingAnEarlierFixCarriesAClusterBrief(t *testing.T) {
	marker := prstatus.Marker{Round: "r1", Thread: "T1", Kind: prstatus.ReplyAddressed, Category: "validation"}.String()
	p := newPR().
		thread("T1", "bob", "api/list.go", 12, "Validate `limit`: negative values break paging.").
		reply("T1", "dev", "Done: limit is checked now. "+marker).resolve("T1").
		thread("T2", "bob", "api/get.go", 8, "This accepts malformed ids; validate and reject them with a 400.")
	d := start(t)
	requireExecute(t, d.poll(p), TaskExplainComment)
	d.ev(EventTaskComplete, EventData{Recommendation: "validate"})
	act := d.choose(elicitation.ApplyRecommendation)
	requireExecute(t, act, TaskApplyRecommendation)
	c := act.Context.Cluster
	require.NotNil(t, c, "new feedback on the same theme as an earlier fix")
	assert.Equal(t, "validation", c.Theme)
	require.Len(t, c.Prior, 1)
	assert.Equal(t, "T1", c.Prior[0].ThreadID)
	assert.Contains(t, c.Instruction, "band-aid")
	assert.Contains(t, mustJSON(t, c.Prior[0].Excerpt), "untrusted GitHub text")

	req := requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "Validated."}), ServerPostReply)
	assert.Equal(t, "validation", req.Marker.Category, "the reply records the category for later rounds")
}

func TestUnrelatedFeedbackCarriesNoClusterBrief(t *testing.T) {
	d := start(t)
	d.poll(newPR().thread("T1", "bob", "docs/README.md", 3, "Typo: recieve."))
	d.ev(EventTaskComplete, EventData{Recommendation: "fix the typo"})
	act := d.choose(elicitation.ApplyRecommendation)
	assert.Nil(t, act.Context.Cluster)
	assert.Nil(t, act.Context.PriorAttempt)
}

// TestAThreadsCategoryIsTheClusterAnalysisOwnElseTheFloor: the category a reply's marker carries is
// the one the cluster analysis gave that very thread, else the deterministic floor for its words.
func TestAThreadsCategoryIsTheClusterAnalysisOwnElseTheFloor(t *testing.T) {
	cs := &CommentsState{Cluster: &ClusterContext{NewThreads: []rounds.ClusterThread{
		{ID: "T1", Category: rounds.CategorySecurity},
		{ID: "T2", Category: rounds.CategoryNaming},
	}}}
	floor := ThreadContext{ID: "T3", Comment: "please add a unit test for this branch", Path: "a.go"}
	for _, tt := range []struct {
		name   string
		thread ThreadContext
		want   rounds.Category
	}{
		{"the first thread of the cluster", ThreadContext{ID: "T1", Comment: floor.Comment}, rounds.CategorySecurity},
		{"the second thread of the cluster", ThreadContext{ID: "T2", Comment: floor.Comment}, rounds.CategoryNaming},
		{"a thread the cluster did not place", floor, rounds.Categorize(string(floor.Comment), floor.Path)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, cs.category(tt.thread))
		})
	}
	assert.Equal(t, rounds.CategoryTesting, rounds.Categorize(string(floor.Comment), floor.Path), "the floor differs from both")
}
