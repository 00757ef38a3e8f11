package watch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// What GitHub computes late (late.go): mergeability, and the checks of a new head.

func TestUnknownMergeabilityIsReadAgainThenGitHubIsAskedOnceToComputeIt(t *testing.T) {
	s := newSim(t, Config{}, githubfake.WithLazyMergeability(githubfake.LazyMergeability{AfterGet: 3 * time.Second}),
		githubfake.WithWorkflowOnPush(githubfake.WorkflowOnPush{Jobs: []string{"build"}}))
	s.open(testPR)
	first, ok := s.waitUpdate(testPR, 0, time.Minute)
	require.True(t, ok)
	require.NotNil(t, first.Snapshot)
	assert.Equal(t, prstatus.MergeableUnknown, first.Snapshot.Mergeable, "GitHub has not computed it")
	f := prstatus.Derive(first.Snapshot, s.f.Now())
	_, ready := findAttention(f, prstatus.AttentionMergeConflict)
	assert.False(t, ready, "UNKNOWN is no conflict")

	batchesBefore, _, _ := s.src.counts()
	computed, ok := s.waitUpdate(testPR, first.Seq, time.Minute)
	require.True(t, ok, "the computed mergeability is published")
	assert.Equal(t, prstatus.MergeableYes, computed.Snapshot.Mergeable)
	assert.Contains(t, computed.Cause, "mergeable")
	batches, _, _ := s.src.counts()
	assert.GreaterOrEqual(t, batches-batchesBefore, 2, "read again a few seconds apart before asking")
	// Two looks (the first after the first read's catch-up interval), the ask, GitHub's 3 s, a look.
	assert.LessOrEqual(t, computed.At.Sub(first.At), 30*time.Second)
	t.Logf("computed mergeability published %s after the first read", computed.At.Sub(first.At))
	assert.Equal(t, 1, s.src.asks, "GitHub was asked once")

	s.runFor(DefaultHotWindow)
	assert.Equal(t, 1, s.src.asks, "once an episode")

	s.apply(testPR, githubfake.Push{Commits: githubfake.Commits(1, "fix")})
	s.runFor(time.Minute)
	u, _ := s.w.Latest(testPR)
	assert.Equal(t, prstatus.MergeableYes, u.Snapshot.Mergeable, "computed again after the push")
	assert.Equal(t, 2, s.src.asks, "a new head is a new episode")
}

func TestMergeabilityGitHubComputesByItselfIsNotAskedFor(t *testing.T) {
	s := newSim(t, Config{}, githubfake.WithLazyMergeability(githubfake.LazyMergeability{OnItsOwn: 4 * time.Second}))
	s.open(testPR)
	s.runFor(time.Minute)
	u, _ := s.w.Latest(testPR)
	assert.Equal(t, prstatus.MergeableYes, u.Snapshot.Mergeable)
	assert.Zero(t, s.src.asks)
}

func TestAHeadWithoutChecksIsPublishedAgainWhenTheGraceForChecksToRegisterEnds(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR, githubfake.Approve(alice, ""))
	first, ok := s.waitUpdate(testPR, 0, time.Minute)
	require.True(t, ok)
	f := prstatus.Derive(first.Snapshot, first.At)
	assert.Equal(t, prstatus.AttentionCIPending, f.Attention.Kind, "%s", f.Attention.Reason)
	assert.Contains(t, f.Attention.Reason, "waiting for checks to register")

	again, ok := s.waitUpdate(testPR, first.Seq, prstatus.DefaultChecksGrace+time.Second)
	require.True(t, ok, "published again when the grace ends, though nothing moved on GitHub")
	assert.Equal(t, CauseGrace, again.Cause)
	assert.Same(t, first.Snapshot, again.Snapshot, "no request: the same snapshot")
	f = prstatus.Derive(again.Snapshot, again.At)
	assert.Equal(t, prstatus.AttentionReadyToMerge, f.Attention.Kind, "no CI on this head: green once the grace is over")
}

func TestChecksThatRegisterLateAreWaitedForNotTakenForGreen(t *testing.T) {
	s := newSim(t, Config{}, githubfake.WithWorkflowOnPush(githubfake.WorkflowOnPush{Jobs: []string{"build"}, After: 20 * time.Second}))
	s.open(testPR, githubfake.Approve(alice, ""))
	first, ok := s.waitUpdate(testPR, 0, time.Minute)
	require.True(t, ok)
	assert.Empty(t, first.Snapshot.Checks, "a null rollup right after the push")
	assert.Equal(t, prstatus.AttentionCIPending, prstatus.Derive(first.Snapshot, first.At).Attention.Kind)

	registered, ok := s.waitUpdate(testPR, first.Seq, time.Minute)
	require.True(t, ok)
	assert.Contains(t, registered.Cause, "statusCheckRollup.state", "the checks registering moved the fingerprint")
	require.Len(t, registered.Snapshot.Checks, 1)
	f := prstatus.Derive(registered.Snapshot, registered.At)
	assert.Equal(t, prstatus.AttentionCIPending, f.Attention.Kind)
	assert.Contains(t, f.Attention.Reason, "still running")
	s.runFor(prstatus.DefaultChecksGrace)
	u, _ := s.w.Latest(testPR)
	assert.NotEqual(t, CauseGrace, u.Cause, "no grace to end: the head has checks")
}

func TestAPartlyAnsweredBatchKeepsTheGoodPartsAndLooksAgainAtTheRest(t *testing.T) {
	other := prstatus.PRRef{Owner: "acme", Repo: "gadgets", Number: 3}
	s := newSim(t, Config{})
	s.open(testPR)
	s.open(other)
	s.runFor(prstatus.DefaultChecksGrace + DefaultHotWindow)
	u7, _ := s.w.Latest(testPR)
	u3, _ := s.w.Latest(other)

	// gadgets sorts first: its repository is r0, widgets r1. The next request is the next batch.
	s.f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Times: 1, PartialPaths: []string{"r1.p7"}})
	s.apply(testPR, githubfake.CommentReview(alice, "One more thing."))
	s.apply(other, githubfake.CommentReview(alice, "Looks good."))
	got3, ok := s.waitUpdate(other, u3.Seq, DefaultMinCycle+DefaultJitter)
	require.True(t, ok, "the answered part is kept")
	require.NoError(t, got3.Err)
	got7, ok := s.waitUpdate(testPR, u7.Seq, 2*(DefaultMinCycle+DefaultJitter))
	require.True(t, ok, "the unanswered part is looked at again")
	require.NoError(t, got7.Err, "a first partial failure is retried, not reported")
	assert.Contains(t, got7.Cause, "updatedAt")
}

func TestATimedOutRequestCountsAgainstTheBudget(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	s.runFor(prstatus.DefaultChecksGrace + DefaultHotWindow)
	before := s.w.Stats().PointsThisHour
	_, _, fakeBefore := s.src.counts()

	// GitHub's front end gives up on the batch (it did the work, and counts it), the retry passes.
	s.f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Times: 1, Status: 504})
	b0, _, _ := s.src.counts()
	for b, _, _ := s.src.counts(); b == b0; b, _, _ = s.src.counts() {
		require.True(t, s.step(s.f.Now().Add(time.Minute)))
	}
	_, _, fakeAfter := s.src.counts()
	charged := s.w.Stats().PointsThisHour - before
	assert.Equal(t, 1, fakeAfter-fakeBefore, "the answer says 1 point")
	assert.Equal(t, 2, charged, "the timed-out attempt counts too")
}

func findAttention(f prstatus.Facts, k prstatus.AttentionKind) (prstatus.Attention, bool) {
	for _, a := range f.Attentions {
		if a.Kind == k {
			return a, true
		}
	}
	return prstatus.Attention{}, false
}

func TestTheWatchersStatsShowTheTokensWritePacing(t *testing.T) {
	s := newSim(t, Config{}, githubfake.WithLazyMergeability(githubfake.LazyMergeability{}))
	s.open(testPR, githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "nil?"}))
	s.runFor(time.Second) // connects
	th, err := s.f.PR(githubfake.Ref(testPR)).Thread(0)
	require.NoError(t, err)
	at := s.f.Now()
	require.NoError(t, s.c.ResolveThread(t.Context(), th.ID))
	st := s.w.Stats()
	assert.Equal(t, at.Add(time.Second), st.Writes.NextWrite, "the next write waits a second")
	assert.True(t, st.Writes.HeldUntil.IsZero(), "nothing held back")
}
