package rounds

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

func TestVerdictsOnAFreshPR(t *testing.T) {
	f := aPR().commit("c1", "09:00").derive()
	assert.Empty(t, VerdictsSince(&f, time.Time{}, "r1"))
	assert.Empty(t, f.Reviews.History)
	assert.Nil(t, VerdictsSince(nil, time.Time{}, "r1"))
}

func TestVerdictAfterARejectedRound(t *testing.T) {
	f := aPR().commit("c1", "09:00").
		fresh("T1", "api/list.go", 12, "bob", "09:50", "Validate `limit`:\n\n```suggestion\nif limit < 0 {\n```").
		fresh("T2", "api/get.go", 0, "bob", "09:55", "This panics on a nil id.").
		reviewSaying("bob", cr, "10:00", "Two problems, see inline.").
		fresh("T3", "api/put.go", 3, "bob", "11:00", "A later comment, from a later review.").
		derive()

	got := VerdictsSince(&f, at("09:30"), "r1")
	require.Len(t, got, 1)
	v := got[0]
	assert.Equal(t, Verdict{
		Reviewer: "bob", Approved: false, State: cr,
		Feedback: "Two problems, see inline.\n\n" +
			"[api/list.go:12]\nValidate `limit`:\n\n```suggestion\nif limit < 0 {\n```\n\n" +
			"[api/get.go]\nThis panics on a nil id.",
		Round: "r1", At: at("10:00"), Branch: "feature", ReviewID: v.ReviewID, CommitOID: oid("c1"),
	}, v)
	assert.NotEmpty(t, v.ReviewID)
}

func TestVerdictLeavesOutThreadsOfEarlierRounds(t *testing.T) {
	// bob's first review fell off the snapshot's page of reviews; its thread must not be taken
	// for feedback on the later attempt.
	f := aPR().commit("c1", "09:00").
		fresh("T1", "a.go", 1, "bob", "09:50", "Old concern, already handled.").
		reviewSaying("bob", cr, "10:00", "First round.").
		commit("c2", "11:00").
		fresh("T2", "b.go", 2, "bob", "11:50", "New concern.").
		reviewSaying("bob", cr, "12:00", "Second round.").
		truncateHistory(1).
		derive()
	got := VerdictsSince(&f, at("11:00"), "r2")
	require.Len(t, got, 1)
	assert.Equal(t, "Second round.\n\n[b.go:2]\nNew concern.", got[0].Feedback)
}

func TestVerdictApproval(t *testing.T) {
	f := aPR().commit("c1", "09:00").review("bob", cr, "10:00").
		commit("c2", "11:00").reviewSaying("bob", approved, "12:00", "").derive()
	got := VerdictsSince(&f, at("11:00"), "r2")
	require.Len(t, got, 1)
	assert.True(t, got[0].Approved)
	assert.Equal(t, approved, got[0].State)
	assert.Equal(t, oid("c2"), got[0].CommitOID)
	assert.Empty(t, got[0].Feedback, "an approval without words is still a verdict")
	assert.Equal(t, "r2", got[0].Round)
}

func TestVerdictsSinceIsStrict(t *testing.T) {
	f := aPR().commit("c1", "09:00").review("bob", cr, "10:00").review("carol", approved, "10:30").derive()
	assert.Len(t, VerdictsSince(&f, at("09:59"), ""), 2)
	assert.Len(t, VerdictsSince(&f, at("10:00"), ""), 1, "a review at since is not after it")
	assert.Empty(t, VerdictsSince(&f, at("10:30"), ""))
}

func TestVerdictsLeaveOutThePRsSide(t *testing.T) {
	f := aPR().with(func(s *prstatus.Snapshot) { s.Viewer = "helper" }).commit("c1", "09:00").
		fresh("T1", "a.go", 1, "bob", "09:50", "Validate it.").
		reviewSaying("bob", cr, "10:00", "See inline.").
		rawThread(prstatus.Thread{ID: "T9", Path: "a.go", Line: 1},
			say{who: "carol", when: "10:10", body: "Why?"},
			say{who: "dev", when: "10:20", body: "Because:\n```go\nfunc secret() {}\n```"}).
		reviewSaying("carol", comment, "10:10", "").
		reviewSaying("dev", comment, "10:20", "My own note on my PR.").
		reviewSaying("helper", comment, "10:25", "The token's user speaking.").
		derive()

	got := VerdictsSince(&f, time.Time{}, "r1")
	require.Len(t, got, 2)
	assert.Equal(t, "bob", got[0].Reviewer)
	assert.Equal(t, "carol", got[1].Reviewer)
	assert.Equal(t, comment, got[1].State)
	assert.Equal(t, "[a.go:1]\nWhy?", got[1].Feedback, "a COMMENTED review that opened a thread is feedback")
	for _, v := range got {
		assert.NotContains(t, v.Feedback, "func secret", "the PR's side's replies (and their code) are never feedback")
		assert.NotContains(t, v.Feedback, "My own note")
	}

	for _, h := range f.Reviews.History {
		assert.NotEqual(t, "dev", h.Reviewer, "the author's own reviews are not in the history")
	}
}

func TestVerdictsSkipEmptyComments(t *testing.T) {
	// A reply in someone else's thread is an empty COMMENTED review that opened nothing.
	f := aPR().commit("c1", "09:00").
		rawThread(prstatus.Thread{ID: "T1", Path: "a.go"}, say{who: "bob", when: "09:00", body: "Rename it."}, say{who: "carol", when: "10:00", body: "+1"}).
		reviewSaying("bob", comment, "09:00", "").
		reviewSaying("carol", comment, "10:00", "  \n").
		review("erin", prstatus.ReviewPending, "10:30").
		derive()
	got := VerdictsSince(&f, time.Time{}, "")
	require.Len(t, got, 1)
	assert.Equal(t, "bob", got[0].Reviewer)
	require.Len(t, f.Reviews.History, 1, "empty COMMENTED and PENDING reviews are not history")
}

func TestVerdictCarriesNoDiff(t *testing.T) {
	// The JSON holds exactly these fields: the reviewer's words and where they were said, never
	// the attempt they were said about.
	raw, err := json.Marshal(Verdict{})
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(raw, &fields))
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	assert.Equal(t, []string{"approved", "at", "branch", "feedback", "reviewer", "state"}, keys, "omitempty hides round, review_id, commit_oid")

	f := aPR().rawCommit(prstatus.Commit{OID: oid("c1"), AuthoredDate: at("09:00"), CommittedDate: at("09:00"), Headline: "diff --git a/x b/x", ParentCount: 1}).
		reviewSaying("bob", cr, "10:00", "No.").derive()
	for _, v := range VerdictsSince(&f, time.Time{}, "r") {
		assert.NotContains(t, v.Feedback, "diff --git")
	}
}

func TestVerdictFeedbackIsCapped(t *testing.T) {
	f := aPR().commit("c1", "09:00").
		fresh("T1", "a.go", 1, "bob", "09:00", strings.Repeat("é", MaxFeedbackBytes)).
		reviewSaying("bob", cr, "10:00", strings.Repeat("x", MaxFeedbackBytes/2)).
		derive()
	got := VerdictsSince(&f, time.Time{}, "")
	require.Len(t, got, 1)
	assert.LessOrEqual(t, len(got[0].Feedback), MaxFeedbackBytes)
	assert.True(t, strings.HasSuffix(got[0].Feedback, "[feedback truncated]"))
	assert.True(t, strings.HasPrefix(got[0].Feedback, strings.Repeat("x", MaxFeedbackBytes/2)+"\n\n[a.go:1]\n"))
}

func TestVerdictsAreDeterministic(t *testing.T) {
	base := aPR().commit("c1", "09:00").
		fresh("T1", "a.go", 1, "bob", "09:50", "One.").
		fresh("T2", "b.go", 2, "bob", "09:50", "Two.").
		fresh("T3", "c.go", 3, "carol", "09:40", "Three.").
		reviewSaying("bob", cr, "10:00", "Body.").
		reviewSaying("carol", comment, "10:00", "").
		reviewSaying("alice", approved, "10:00", "Fine by me.").
		build()
	f := prstatus.Derive(base, day0)
	want := VerdictsSince(&f, time.Time{}, "r1")
	require.Len(t, want, 3)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 50 {
		fi := prstatus.Derive(shuffled(base, rng), day0)
		require.Equal(t, want, VerdictsSince(&fi, time.Time{}, "r1"), "shuffle %d", i)
	}
}

// TestVerdictPropertiesOnRandomSnapshots: never the PR's side, approved exactly when APPROVED,
// oldest first, and never a review at or before since.
func TestVerdictPropertiesOnRandomSnapshots(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 1000 {
		f := prstatus.Derive(randomGen(rng).snapshot(), day0)
		since := day0.Add(time.Duration(rng.UintN(48)) * time.Hour)
		got := VerdictsSince(&f, since, "r")
		require.True(t, slices.IsSortedFunc(got, func(a, b Verdict) int { return a.At.Compare(b.At) }), "case %d", i)
		for _, v := range got {
			require.False(t, prstatus.IsUs(v.Reviewer, f.Author, f.Viewer), "case %d", i)
			require.Equal(t, v.State == prstatus.ReviewApproved, v.Approved)
			require.True(t, v.At.After(since), "case %d", i)
		}
	}
}
