package ghclient_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestAskingForMergeabilityStartsGitHubsComputation(t *testing.T) {
	e := newFakeEnvOf(t, []githubfake.Option{githubfake.WithLazyMergeability(githubfake.LazyMergeability{AfterGet: 3 * time.Second})},
		func(c *ghclient.Config) { c.RESTAPIVersion = ghclient.RESTAPIVersion20260310 })
	e.apply(t, githubfake.OpenPR{Title: "t"})
	s, _ := e.snapshot(t)
	assert.Equal(t, prstatus.MergeableUnknown, s.Mergeable, "not computed yet")

	m, err := e.c.AskMergeability(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, prstatus.MergeableUnknown, m, "the GET that starts it still says null")
	e.f.Advance(3 * time.Second)
	m, err = e.c.AskMergeability(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, prstatus.MergeableYes, m)
	s, _ = e.snapshot(t)
	assert.Equal(t, prstatus.MergeableYes, s.Mergeable)
	gets := 0
	for _, r := range e.f.Requests() {
		if r.Kind == githubfake.KindREST {
			gets++
			assert.Equal(t, 200, r.Status)
			assert.Equal(t, ghclient.RESTAPIVersion20260310, r.APIVersion, "the pinned version")
		}
	}
	assert.Equal(t, 2, gets)

	e.apply(t, githubfake.BaseBranchMoved{Conflict: true})
	e.f.Advance(time.Second)
	_, err = e.c.AskMergeability(t.Context(), ref)
	require.NoError(t, err)
	e.f.Advance(3 * time.Second)
	m, err = e.c.AskMergeability(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, prstatus.MergeableConflict, m)
}
