package ghclient_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// TestRESTSharesTheTransport uses Client.HTTPClient for REST calls, as the client's go-github
// does (Client.REST): requests are authenticated by the transport, failures are typed, GETs are
// retried past a 5xx and POSTs are not.
func TestRESTSharesTheTransport(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "Add widgets"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	hc, rest := e.c.HTTPClient(), e.c.Endpoints().REST
	pull := func(n int) string { return fmt.Sprintf("%s/repos/%s/%s/pulls/%d", rest, ref.Owner, ref.Repo, n) }

	resp, err := hc.Get(pull(ref.Number))
	require.NoError(t, err)
	var pr struct{ Title string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&pr))
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "Add widgets", pr.Title)

	_, err = hc.Get(pull(999))
	require.ErrorIs(t, err, ghclient.ErrNotFound)

	// The same through the client's go-github, which decodes the fake's answer as GitHub's.
	got, _, err := e.c.REST().PullRequests.Get(t.Context(), ref.Owner, ref.Repo, ref.Number)
	require.NoError(t, err)
	assert.Equal(t, "Add widgets", got.GetTitle())
	assert.Equal(t, ref.Number, got.GetNumber())
	_, _, err = e.c.REST().PullRequests.Get(t.Context(), ref.Owner, ref.Repo, 999)
	require.ErrorIs(t, err, ghclient.ErrNotFound)

	h := e.f.InjectFault(githubfake.Fault{Match: githubfake.MatchREST(http.MethodGet, "/repos/*/*/pulls/*"), Status: 502, Times: 1})
	resp, err = hc.Get(pull(ref.Number))
	require.NoError(t, err, "a GET is retried past a 502")
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 1, h.Hits())

	check, err := e.f.PR(githubfake.Ref(ref)).Check("test")
	require.NoError(t, err)
	h = e.f.InjectFault(githubfake.Fault{Match: githubfake.MatchREST(http.MethodPost, ""), Status: 502})
	rerun := fmt.Sprintf("%s/repos/%s/%s/actions/runs/%d/rerun-failed-jobs", rest, ref.Owner, ref.Repo, check.RunID)
	_, err = hc.Post(rerun, "application/json", nil)
	require.ErrorIs(t, err, ghclient.ErrUnavailable)
	assert.Equal(t, 1, h.Hits(), "a POST is never retried by the transport")
}
