package ghclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestAFingerprintBatchThatMeetsA429HoldsTheNextOne(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t"})
	e.f.InjectFault(githubfake.Fault{Match: githubfake.Match{Kind: githubfake.KindGraphQL}, Status: 429, RetryAfter: time.Hour})
	e.rec.reset()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err := e.c.Fingerprints(ctx, []prstatus.PRRef{ref})
	var rl *ghclient.RateLimitError
	require.ErrorAs(t, err, &rl)
	_, err = e.c.Fingerprints(ctx, []prstatus.PRRef{ref})
	require.ErrorAs(t, err, &rl)
	assert.True(t, rl.HeldBack)
	assert.Len(t, e.rec.documents(), 1, "the second batch is held back by the first one's Retry-After")
}
