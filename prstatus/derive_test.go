package prstatus

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeriveCopiesTheBasics(t *testing.T) {
	now := at("+3d 08:00")
	s := aPR().commit("c1", "09:00").with(func(s *Snapshot) {
		s.URL = "https://github.com/acme/widget/pull/7"
		s.MergeStateStatus = "CLEAN"
		s.RateLimit = RateLimit{Cost: 1, Remaining: 4999, Limit: 5000}
	}).decision("APPROVED").build()
	f := Derive(s, now)

	assert.Equal(t, PRRef{Owner: "acme", Repo: "widget", Number: 7}, f.Ref)
	assert.Equal(t, "PR_7", f.ID)
	assert.Equal(t, "Add widgets", f.Title)
	assert.Equal(t, s.URL, f.URL)
	assert.Equal(t, "dev", f.Author)
	assert.Equal(t, "dev", f.Viewer)
	assert.Equal(t, StateOpen, f.State)
	assert.Equal(t, "feature", f.HeadRef)
	assert.Equal(t, oid("c1"), f.HeadSHA)
	assert.Equal(t, "main", f.BaseRef)
	assert.Equal(t, MergeableYes, f.Mergeable)
	assert.Equal(t, "CLEAN", f.MergeStateStatus)
	assert.Equal(t, "APPROVED", f.ReviewDecision)
	assert.Equal(t, s.RateLimit, f.RateLimit)
	assert.Equal(t, now, f.DerivedAt)
	require.Len(t, f.Commits, 1)
	assert.Equal(t, CommitSubstantive, f.Commits[0].Kind)
}

func TestDeriveMergedFlagSetsState(t *testing.T) {
	f := aPR().with(func(s *Snapshot) { s.Merged = true }).derive()
	assert.Equal(t, StateMerged, f.State)
}

func TestDeriveOnlyUsesNowForDerivedAt(t *testing.T) {
	s := aPR().commit("c1", "09:00").review("bob", cr, "10:00").thread("T1", say{who: "bob", when: "10:00"}).build()
	a, b := Derive(s, at("11:00")), Derive(s, at("+30d 11:00"))
	a.DerivedAt, b.DerivedAt = time.Time{}, time.Time{}
	assert.Equal(t, a, b)
}

func TestDeriveNeverPanicsOnEmptyInput(t *testing.T) {
	for name, s := range map[string]*Snapshot{
		"nil":                nil,
		"zero":               {},
		"nil author actors":  {Reviews: []Review{{State: cr}}, Threads: []Thread{{Comments: []Comment{{}}}}, Checks: []Check{{}}, Commits: []Commit{{}}},
		"empty lists":        {Reviews: []Review{}, Threads: []Thread{}, Checks: []Check{}, Commits: []Commit{}, ReviewRequests: []string{}},
		"thread no comments": {Threads: []Thread{{ID: "T1", TotalComments: 5}}},
	} {
		t.Run(name, func(t *testing.T) {
			require.NotPanics(t, func() {
				f := Derive(s, time.Time{})
				checkInvariants(t, s, f)
				_, err := json.Marshal(f)
				require.NoError(t, err)
			})
		})
	}
}

func TestJSONShowsEmptyListsNotNull(t *testing.T) {
	b, err := json.Marshal(Derive(&Snapshot{}, time.Time{}))
	require.NoError(t, err)
	for _, field := range []string{`"changes_requested_by":[]`, `"approvals":[]`, `"needs_action":[]`, `"failed_checks":[]`, `"commits":[]`, `"latest":[]`} {
		assert.Contains(t, string(b), field)
	}
}

// TestStableUnderReordering: the snapshot's lists come in whatever order GitHub and pagination
// give; the facts (but for the commits, which keep the PR's order) and every key must not change.
func TestStableUnderReordering(t *testing.T) {
	base := green().
		review("alice", approved, "09:10").review("bob", cr, "09:20").review("carol", comment, "09:30").
		commit("c2", "09:40").mergeMain("m1", "09:50").rewritten("c3", "09:00", "10:30").
		review("erin", approved, "10:40").review("coderabbitai[bot]", cr, "10:45").
		thread("T1", say{who: "bob", when: "10:00"}).
		thread("T2", say{who: "carol", when: "10:00"}, say{who: "dev", when: "10:10"}, say{who: "carol", when: "10:20"}).
		thread("T3", say{who: "alice", when: "09:00"}, say{who: "dev", when: "10:10"}).
		resolvedThread("T4", say{who: "alice", when: "09:00"}).
		run("lint", 13, "COMPLETED", "FAILURE").run("lint", 14, "COMPLETED", "FAILURE").run("e2e", 15, "QUEUED", "").
		status("ci/legacy", "ERROR").run("docs", 16, "COMPLETED", "CANCELLED").
		request("zed", "acme/core").
		mergeable(MergeableConflict).build()
	want := comparable(Derive(base, at("12:00")))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		s := shuffled(base, rng)
		got := comparable(Derive(s, at("12:00")))
		require.Equal(t, want, got, "shuffle %d", i)
	}
}

// comparable drops what legitimately follows input order: the commits list.
func comparable(f Facts) Facts {
	f.Commits = nil
	return f
}

func shuffled(s *Snapshot, rng *rand.Rand) *Snapshot {
	c := *s
	c.Reviews = shuffle(s.Reviews, rng)
	c.LatestOpinionatedReviews = shuffle(s.LatestOpinionatedReviews, rng)
	c.ReviewRequests = shuffle(s.ReviewRequests, rng)
	c.Threads = shuffle(s.Threads, rng)
	c.Commits = shuffle(s.Commits, rng)
	c.Checks = shuffle(s.Checks, rng)
	return &c
}

func shuffle[T any](in []T, rng *rand.Rand) []T {
	out := slices.Clone(in)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// checkInvariants holds for every snapshot whatsoever.
func checkInvariants(t *testing.T, s *Snapshot, f Facts) {
	t.Helper()
	if s == nil {
		s = &Snapshot{}
	}
	require.NotEmpty(t, f.Attentions)
	assert.Equal(t, f.Attentions[0], f.Attention)

	// Attentions follow AttentionOrder, each at most once; none, merged and closed stand alone.
	last := -1
	for _, a := range f.Attentions {
		i := slices.Index(AttentionOrder, a.Kind)
		require.GreaterOrEqual(t, i, 0, "unknown kind %q", a.Kind)
		require.Greater(t, i, last, "attentions out of order: %v", kinds(f))
		last = i
		assert.True(t, strings.HasPrefix(a.Key, string(a.Kind)+"@"+f.HeadSHA), "key %q", a.Key)
		assert.NotEmpty(t, a.Reason)
		if a.Kind == AttentionNone || a.Kind == AttentionMerged || a.Kind == AttentionClosed {
			assert.Len(t, f.Attentions, 1, "%s stands alone: %v", a.Kind, kinds(f))
		}
	}

	// Every thread with comments is in exactly one list.
	want := map[string]int{}
	for _, th := range s.Threads {
		if len(th.Comments) > 0 {
			want[th.ID]++
		}
	}
	got := map[string]int{}
	for status, list := range map[ThreadStatus][]ThreadFact{
		ThreadNeedsAction: f.Threads.NeedsAction, ThreadReviewerReplied: f.Threads.ReviewerReplied,
		ThreadWaiting: f.Threads.Waiting, ThreadResolved: f.Threads.Resolved,
	} {
		for _, th := range list {
			assert.Equal(t, status, th.Status)
			got[th.ID]++
		}
	}
	for _, th := range f.Threads.FromOthers { // opened by someone who cannot review: shown, not acted on
		got[th.ID]++
	}
	assert.Equal(t, want, got, "every thread in exactly one bucket")

	// Every check in exactly one bucket.
	ci := f.CI
	assert.Equal(t, ci.Total, ci.Passed+ci.Failed+ci.Cancelled+ci.Pending)
	assert.Len(t, ci.FailedChecks, ci.Failed)
	assert.Len(t, ci.CancelledChecks, ci.Cancelled)
	assert.Len(t, ci.PendingChecks, ci.Pending)
	assert.LessOrEqual(t, ci.Total, len(s.Checks))

	// A reviewer has one verdict.
	r := f.Reviews
	for _, list := range [][]string{r.ChangesRequestedBy, r.Approvals, r.StaleApprovals} {
		assert.True(t, slices.IsSortedFunc(list, func(a, b string) int { return strings.Compare(loginKey(a), loginKey(b)) }), "%v", list)
	}
	for _, who := range r.ChangesRequestedBy {
		assert.NotContains(t, r.Approvals, who)
		assert.NotContains(t, r.StaleApprovals, who)
	}
	for _, who := range r.Approvals {
		assert.NotContains(t, r.StaleApprovals, who)
	}
	for _, v := range r.Latest {
		assert.False(t, sameLogin(v.Reviewer, s.Author.Login), "the author's own review counted")
	}

	// Refine.
	if f.Refine.NeedsRefine {
		assert.NotEmpty(t, r.ChangesRequestedBy)
		assert.Equal(t, AttentionChangesRequested, f.Attention.Kind)
	}
	assert.Equal(t, len(r.ChangesRequestedBy) > 0, f.Refine.Round != "")
	assert.Len(t, f.Commits, len(s.Commits))

	// Safety: never ready to merge against a standing request for changes, red CI or a draft.
	if a, ok := attentionOf(f, AttentionReadyToMerge); ok {
		assert.Empty(t, r.ChangesRequestedBy, a.Reason)
		assert.NotEmpty(t, r.Approvals)
		assert.True(t, ci.Green())
		assert.False(t, f.IsDraft)
		assert.Equal(t, MergeableYes, f.Mergeable)
		assert.Contains(t, []string{"", "APPROVED"}, f.ReviewDecision)
	}
}

// gen builds snapshot shapes from a byte stream, for the fuzzer and the property test.
type gen struct {
	data []byte
	i    int
}

func (g *gen) byte() byte {
	if g.i >= len(g.data) {
		return 0
	}
	b := g.data[g.i]
	g.i++
	return b
}

// assocs are the associations generated authors get: people who can review, others, and none read.
var assocs = []Association{AssocMember, AssocOwner, AssocCollaborator, AssocNone, AssocContributor, ""}

func pick[T any](g *gen, from ...T) T { return from[int(g.byte())%len(from)] }

func (g *gen) time() time.Time { return day0.Add(time.Duration(g.byte()) * 7 * time.Minute) }

func (g *gen) snapshot() *Snapshot {
	logins := []string{"dev", "bob", "alice", "Bob", "coderabbitai[bot]", "", "helper"}
	oids := []string{"", oid("c1"), oid("c2"), oid("c3"), oid("c4")}
	s := &Snapshot{
		Author:         Actor{Login: pick(g, "dev", "", "bob")},
		Viewer:         pick(g, "dev", "helper", ""),
		State:          pick(g, StateOpen, StateOpen, StateClosed, StateMerged, ""),
		Merged:         g.byte()%8 == 0,
		Closed:         g.byte()%8 == 0,
		IsDraft:        g.byte()%4 == 0,
		HeadOID:        pick(g, oids...),
		Mergeable:      pick(g, MergeableYes, MergeableYes, MergeableConflict, MergeableUnknown, ""),
		ReviewDecision: pick(g, "", "APPROVED", "REVIEW_REQUIRED", "CHANGES_REQUESTED"),
	}
	states := []ReviewState{approved, cr, comment, ReviewDismissed, ReviewPending, "BOGUS"}
	for i := range int(g.byte() % 8) {
		r := Review{ID: fmt.Sprintf("R%d", i), Author: actor(pick(g, logins...)), AuthorAssociation: pick(g, assocs...), State: pick(g, states...), SubmittedAt: g.time(), CommitOID: pick(g, oids...)}
		s.Reviews = append(s.Reviews, r)
		if g.byte()%2 == 0 {
			s.LatestOpinionatedReviews = append(s.LatestOpinionatedReviews, r)
		}
	}
	for i := range int(g.byte() % 3) {
		s.LatestOpinionatedReviews = append(s.LatestOpinionatedReviews, Review{ID: fmt.Sprintf("L%d", i), Author: actor(pick(g, logins...)), AuthorAssociation: pick(g, assocs...), State: pick(g, states...), SubmittedAt: g.time(), CommitOID: pick(g, oids...)})
	}
	for range int(g.byte() % 3) {
		s.ReviewRequests = append(s.ReviewRequests, pick(g, "bob", "alice", "acme/core", ""))
	}
	for i := range int(g.byte() % 6) {
		authored := g.time()
		s.Commits = append(s.Commits, Commit{
			OID: fmt.Sprintf("%040d", i), AuthoredDate: authored, CommittedDate: authored.Add(time.Duration(g.byte()%4) * 40 * time.Second * time.Duration(g.byte()%30)),
			Headline: pick(g, "Fix", "Merge branch 'main'", "Merge pull request #1", "Mergeable fix", ""), ParentCount: int(g.byte() % 3),
		})
	}
	marker := Marker{Round: "r", Thread: "T", Kind: ReplyReplied}.String()
	for i := range int(g.byte() % 6) {
		th := Thread{ID: fmt.Sprintf("T%d", i), IsResolved: g.byte()%4 == 0, IsOutdated: g.byte()%4 == 0, Path: pick(g, "", "a.go"), Line: int(g.byte() % 3)}
		for j := range int(g.byte() % 4) {
			th.Comments = append(th.Comments, Comment{ID: fmt.Sprintf("C%d.%d", i, j), Author: actor(pick(g, logins...)), AuthorAssociation: pick(g, assocs...), Body: pick(g, "hm", marker, "<!-- prmonitor:v1 -->"), CreatedAt: g.time(), DatabaseID: int64(g.byte())})
		}
		th.TotalComments = len(th.Comments) + int(g.byte()%2)
		s.Threads = append(s.Threads, th)
	}
	for range int(g.byte() % 6) {
		s.Checks = append(s.Checks, Check{
			Kind:         pick(g, KindCheckRun, KindStatusContext, ""),
			Name:         pick(g, "test", "lint", ""),
			Status:       pick(g, "COMPLETED", "COMPLETED", "QUEUED", "IN_PROGRESS", "", "weird"),
			Conclusion:   pick(g, "SUCCESS", "FAILURE", "CANCELLED", "STALE", "NEUTRAL", "", "NEW"),
			State:        pick(g, "SUCCESS", "FAILURE", "ERROR", "PENDING", "EXPECTED", ""),
			DatabaseID:   int64(g.byte() % 4),
			WorkflowName: pick(g, "CI", ""),
		})
	}
	return s
}

func FuzzDerive(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("changes requested, then a fix, then a rebase"))
	f.Add([]byte{0, 0, 0, 0, 0, 1, 1, 0, 7, 1, 1, 1, 0, 4, 0, 2, 3, 1, 3, 0, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5})
	f.Add([]byte{255, 254, 253, 252, 251, 250, 249, 248, 247, 246, 245, 244, 243, 242, 241, 240, 239, 238, 237})
	f.Fuzz(func(t *testing.T, data []byte) {
		s := (&gen{data: data}).snapshot()
		fa := Derive(s, day0)
		checkInvariants(t, s, fa)
		fb := Derive(shuffled(s, rand.New(rand.NewPCG(uint64(len(data)), 7))), day0)
		require.Equal(t, comparable(fa), comparable(fb), "order of the snapshot's lists changed the facts")
	})
}

// TestPropertiesOnRandomSnapshots runs the fuzz invariants over many generated snapshots, so they
// hold in every plain `go test` run too.
func TestPropertiesOnRandomSnapshots(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 42))
	for i := range 2000 {
		data := make([]byte, 120)
		for j := range data {
			data[j] = byte(rng.UintN(256))
		}
		s := (&gen{data: data}).snapshot()
		var fa Facts
		require.NotPanics(t, func() { fa = Derive(s, day0) }, "case %d", i)
		checkInvariants(t, s, fa)
		fb := Derive(shuffled(s, rng), day0)
		require.Equal(t, comparable(fa), comparable(fb), "case %d", i)
		if t.Failed() {
			t.Fatalf("case %d failed: %x", i, data)
		}
	}
}
