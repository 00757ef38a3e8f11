package front_test

import (
	"bufio"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
	"github.com/prmonitor/prmonitor/mcpserver/team/front"
)

// offlineBoard is a front end whose Temporal cannot be reached, its board re-checking every 50 ms:
// what is authenticated is told apart by 401 (refused) against 503 (let through, nothing to read).
func offlineBoard(t *testing.T) *httptest.Server {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	fr, err := front.New(front.Config{Client: c, Users: users(t), BoardEvery: 50 * time.Millisecond, Ledger: authledger.NewMemory(time.Now)})
	require.NoError(t, err)
	hs := httptest.NewServer(fr.Handler())
	t.Cleanup(hs.Close)
	return hs
}

func boardRequest(t *testing.T, ctx context.Context, method, url string, cookie *http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	require.NoError(t, err)
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// TestSignOutRevokesTheBoardsSessionOnTheServer: after POST /logout the same cookie (kept by
// another tab, or copied) reads nothing, and a live stream it opened ends.
func TestSignOutRevokesTheBoardsSessionOnTheServer(t *testing.T) {
	hs := offlineBoard(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/login", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tokens["alice"])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	require.Len(t, resp.Cookies(), 1)
	cookie := resp.Cookies()[0]

	resp = boardRequest(t, ctx, http.MethodGet, hs.URL+"/api/monitors", cookie)
	resp.Body.Close()
	require.NotEqual(t, http.StatusUnauthorized, resp.StatusCode, "signed in")

	stream := boardRequest(t, ctx, http.MethodGet, hs.URL+"/events", cookie)
	defer stream.Body.Close()
	require.Equal(t, http.StatusOK, stream.StatusCode)
	lines := bufio.NewScanner(stream.Body)
	require.True(t, lines.Scan(), "the stream is live")

	resp = boardRequest(t, ctx, http.MethodPost, hs.URL+"/logout", cookie)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)

	for _, path := range []string{"/api/monitors", "/events"} {
		resp = boardRequest(t, ctx, http.MethodGet, hs.URL+path, cookie)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the same cookie after sign-out: %s", path)
	}
	for lines.Scan() { // read until the server ends the stream; the deadline fails the test otherwise
	}
	assert.NoError(t, ctx.Err(), "the other tab's stream ended")

	resp = boardRequest(t, ctx, http.MethodPost, hs.URL+"/logout", cookie)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode, "signing out twice is fine")
}
