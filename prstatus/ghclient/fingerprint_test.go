package ghclient_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestFingerprintsReadEveryPullRequestOfABatchInOneRequest(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build", "test"}})
	other := prstatus.PRRef{Owner: "acme", Repo: "gadgets", Number: 3}
	require.NoError(t, e.f.Apply(githubfake.Ref(other), githubfake.OpenPR{Title: "u"}, githubfake.SetDraft{Draft: true}))
	gone := prstatus.PRRef{Owner: "nobody", Repo: "nothing", Number: 1}
	e.rec.reset()

	b, err := e.c.Fingerprints(t.Context(), []prstatus.PRRef{ref, other, gone, ref})
	require.NoError(t, err)
	assert.Len(t, e.rec.documents(), 1, "one request for the whole batch")
	require.Len(t, b.PRs, 3)
	fp := b.PRs[ref]
	assert.False(t, fp.Missing)
	assert.Equal(t, e.f.PR(githubfake.Ref(ref)).HeadOID(), fp.HeadOID)
	assert.Equal(t, "OPEN", fp.State)
	assert.Equal(t, "PENDING", fp.Rollup)
	assert.Equal(t, "run:QUEUED=2", fp.Checks)
	assert.True(t, b.PRs[other].IsDraft)
	assert.True(t, b.PRs[gone].Missing, "a missing pull request is Missing, not an error for the batch")
	assert.Equal(t, 1, b.RateLimit.Cost)
	assert.Positive(t, b.RateLimit.Limit)
}

func TestAFingerprintMovesWhenACheckCompletes(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build", "test"}})
	before, err := e.c.Fingerprints(t.Context(), []prstatus.PRRef{ref})
	require.NoError(t, err)
	e.f.Advance(time.Minute)
	e.apply(t, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess})
	after, err := e.c.Fingerprints(t.Context(), []prstatus.PRRef{ref})
	require.NoError(t, err)
	assert.Equal(t, []string{"checkRunCountsByState"}, before.PRs[ref].Changed(after.PRs[ref]))
}

func TestFingerprintsHonourTheGate(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"})
	e.c.Gate().Hold(ghclient.ScopeToken, e.f.Now().Add(time.Hour), "secondary rate limit")
	e.rec.reset()
	_, err := e.c.Fingerprints(t.Context(), []prstatus.PRRef{ref})
	var rl *ghclient.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.True(t, rl.HeldBack)
	assert.Empty(t, e.rec.documents(), "nothing is sent while the gate holds")
}

func TestFingerprintsRefuseMoreThanABatch(t *testing.T) {
	e := newFakeEnv(t)
	refs := make([]prstatus.PRRef, ghclient.MaxFingerprintBatch+1)
	for i := range refs {
		refs[i] = prstatus.PRRef{Owner: "o", Repo: "r", Number: i + 1}
	}
	_, err := e.c.Fingerprints(t.Context(), refs)
	require.Error(t, err)
	_, err = e.c.Fingerprints(t.Context(), []prstatus.PRRef{{Owner: "o", Repo: "r"}})
	require.ErrorIs(t, err, prstatus.ErrBadRef)
}

// TestFingerprintDocumentIsStable pins the fingerprint batch document for four pull requests in
// two repositories, one with each combination of connections: what it reads, and that it costs 1
// point, are reviewed, never changed by accident. Set PRMONITOR_UPDATE_GOLDEN=1 to rewrite the file.
func TestFingerprintDocumentIsStable(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"})
	e.rec.reset()
	_, err := e.c.FingerprintsOf(t.Context(), []ghclient.FingerprintRequest{
		{Ref: ref, Checks: true, Threads: true},
		{Ref: prstatus.PRRef{Owner: "acme", Repo: "gadgets", Number: 2}, Threads: true},
		{Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 9}},
		{Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 11}, Checks: true},
	})
	require.NoError(t, err)
	docs := e.rec.documents()
	require.Len(t, docs, 1)
	got := docs[0].Query + "\n"

	golden := filepath.Join("testdata", "fingerprint_query.graphql")
	if os.Getenv("PRMONITOR_UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run with PRMONITOR_UPDATE_GOLDEN=1 to create %s", golden)
	assert.Equal(t, strings.TrimSpace(string(want)), strings.TrimSpace(got))
}

func TestAFingerprintCatchesWhatGitHubDoesNotTimestamp(t *testing.T) {
	tests := []struct {
		name   string
		look   ghclient.FingerprintRequest
		before githubfake.Event
		event  githubfake.Event
		want   []string
	}{
		{
			name:  "a thread resolved, with the threads read",
			look:  ghclient.FingerprintRequest{Ref: ref, Threads: true},
			event: githubfake.ThreadResolved{Thread: 0, By: alice},
			want:  []string{"reviewThreads.isResolved"},
		},
		{
			name:   "a thread unresolved again",
			look:   ghclient.FingerprintRequest{Ref: ref, Threads: true},
			before: githubfake.ThreadResolved{Thread: 1, By: alice},
			event:  githubfake.ThreadUnresolved{Thread: 1, By: alice},
			want:   []string{"reviewThreads.isResolved"},
		},
		{
			name:  "a thread resolved, without the threads read: unseen (GitHub moves no timestamp)",
			look:  ghclient.FingerprintRequest{Ref: ref, Checks: true},
			event: githubfake.ThreadResolved{Thread: 0, By: alice},
		},
		{
			name:   "a check completing, with the checks read",
			look:   ghclient.FingerprintRequest{Ref: ref, Checks: true},
			before: githubfake.ChecksQueued{Jobs: []string{"build", "lint"}},
			event:  githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
			want:   []string{"checkRunCountsByState"},
		},
		{
			name:   "a commit status reported, with the checks read",
			look:   ghclient.FingerprintRequest{Ref: ref, Checks: true},
			before: githubfake.StatusReported{Context: "ci/legacy", State: "PENDING"},
			event:  githubfake.StatusReported{Context: "ci/legacy", State: "SUCCESS"},
			want:   []string{"mergeStateStatus", "statusCheckRollup.state", "checkRunCountsByState"},
		},
		{
			name:  "the base branch moving",
			look:  ghclient.FingerprintRequest{Ref: ref},
			event: githubfake.BaseBranchMoved{},
			want:  []string{"baseRef.target.oid", "mergeStateStatus"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.CommentReview(alice, "", githubfake.Threads(2, "a.go")...))
			if tt.before != nil {
				e.apply(t, tt.before)
			}
			before, err := e.c.FingerprintsOf(t.Context(), []ghclient.FingerprintRequest{tt.look})
			require.NoError(t, err)
			e.f.Advance(time.Minute)
			e.apply(t, tt.event)
			after, err := e.c.FingerprintsOf(t.Context(), []ghclient.FingerprintRequest{tt.look})
			require.NoError(t, err)
			assert.Equal(t, tt.want, before.PRs[ref].Changed(after.PRs[ref]))
			s, _ := e.snapshot(t)
			if tt.look.Threads {
				assert.Equal(t, ghclient.SnapshotThreadsPrint(s), after.PRs[ref].Threads, "a snapshot's threads print as the fingerprint reads them")
			}
			if tt.look.Checks {
				assert.Equal(t, ghclient.SnapshotChecksPrint(s), after.PRs[ref].Checks, "a snapshot's checks print as the fingerprint reads them")
			}
			assert.Equal(t, s.BaseOID, after.PRs[ref].BaseOID)
		})
	}
}

func TestAFingerprintComparesOnlyWhatBothLooksRead(t *testing.T) {
	withAll := ghclient.Fingerprint{HeadOID: "a", Checks: "run:SUCCESS=1", Threads: "0/1:00000000"}
	plain := ghclient.Fingerprint{HeadOID: "a"}
	assert.Empty(t, withAll.Changed(plain), "what one look did not read is not a change")
	merged := plain.Over(withAll)
	assert.Equal(t, withAll, merged, "the last value seen carries over")
	moved := ghclient.Fingerprint{HeadOID: "a", Threads: "1/1:00000001"}.Over(withAll)
	assert.Equal(t, []string{"reviewThreads.isResolved"}, withAll.Changed(moved))
	assert.Equal(t, ghclient.Fingerprint{Missing: true}, ghclient.Fingerprint{Missing: true}.Over(withAll))
}
