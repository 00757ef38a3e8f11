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

// TestFingerprintDocumentIsStable pins the fingerprint batch document for three pull requests in
// two repositories: what it reads, and that it costs 1 point, are reviewed, never changed by
// accident. Set PRMONITOR_UPDATE_GOLDEN=1 to rewrite the file.
func TestFingerprintDocumentIsStable(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"})
	e.rec.reset()
	_, err := e.c.Fingerprints(t.Context(), []prstatus.PRRef{ref, {Owner: "acme", Repo: "gadgets", Number: 2}, {Owner: "acme", Repo: "widgets", Number: 9}})
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
