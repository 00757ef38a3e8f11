package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
)

// get sends method to http://addr+path with token as its bearer ("" for none) and returns the
// answer, its body read.
func get(t *testing.T, method, addr, path, token string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	require.NoError(t, err)
	return resp, string(b)
}

// /healthz of the front end (serve --http) and of the worker's webhook listener answers a load
// balancer without a token, and says "ok" and nothing else: no user (not even to a user's token),
// no version, no address, no cookie. Everything else still needs its credential: the front end's
// /mcp and the board's data a known bearer token or session, the webhook a valid signature.
func TestHealthzAnswersWithoutATokenAndRevealsNothing(t *testing.T) {
	d := newDeployment(t, options{})
	w := d.worker()
	front := d.serve()
	secrets := []string{ghToken, secret, tokens["alice"], tokens["bob"], "alice", "bob", d.srv.HostPort, d.srv.Namespace, d.queue, "prmonitor", "temporal"}
	allowed := []string{"Cache-Control", "Content-Length", "Content-Type", "Date", "X-Content-Type-Options"}

	for name, addr := range map[string]string{"the front end": front.Addr, "the worker's webhook listener": w.Addr} {
		t.Run(name, func(t *testing.T) {
			for _, token := range []string{"", tokens["alice"], "not-a-token"} {
				resp, body := get(t, http.MethodGet, addr, "/healthz", token)
				require.Equal(t, http.StatusOK, resp.StatusCode, body)
				assert.Equal(t, "ok\n", body, "the same answer whoever asks")
				for k, vs := range resp.Header {
					assert.Contains(t, allowed, k, "no header but the plain ones")
					for _, v := range vs {
						for _, s := range secrets {
							assert.NotContains(t, strings.ToLower(v), strings.ToLower(s), k)
						}
					}
				}
				assert.Empty(t, resp.Cookies(), "no session from a health check")
			}
			resp, body := get(t, http.MethodPost, addr, "/healthz", "")
			assert.GreaterOrEqual(t, resp.StatusCode, 400, "a health check is read only: %s", body)
			assert.NotEqual(t, "ok\n", body)
		})
	}

	t.Run("the front end's other paths need a known token", func(t *testing.T) {
		for _, c := range []struct{ method, path, token string }{
			{http.MethodPost, "/mcp", ""},
			{http.MethodGet, "/mcp", ""},
			{http.MethodPost, "/mcp", "not-a-token"},
			{http.MethodGet, "/api/monitors", ""},
			{http.MethodGet, "/events", ""},
			{http.MethodGet, "/api/monitors", "not-a-token"},
		} {
			resp, body := get(t, c.method, front.Addr, c.path, c.token)
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s %s: %s", c.method, c.path, body)
			assert.NotContains(t, body, "alice")
		}
		for _, path := range []string{"/healthz/", "/healthz/../mcp", "/healthzx", "/healthz/../api/monitors"} {
			resp, body := get(t, http.MethodGet, front.Addr, path, "")
			assert.NotEqual(t, http.StatusOK, resp.StatusCode, "%s is no health check nor an open door: %s", path, body)
			if loc := resp.Header.Get("Location"); loc != "" {
				resp, body = get(t, http.MethodGet, front.Addr, loc, "")
				assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s leads to %s, which needs the token: %s", path, loc, body)
			}
		}
		resp, body := get(t, http.MethodGet, front.Addr, "/api/monitors", tokens["alice"])
		assert.Equal(t, http.StatusOK, resp.StatusCode, "with her token she reads her board: the 401s above are for want of one: %s", body)
	})

	t.Run("the webhook needs a valid signature", func(t *testing.T) {
		body := prEvent("pull_request", "opened", ref, "alice")
		assert.Equal(t, http.StatusUnauthorized, teamtest.Deliver(t, w.Addr, "pull_request", "h-1", body, nil))
		assert.Equal(t, http.StatusUnauthorized, teamtest.Deliver(t, w.Addr, "pull_request", "h-2", body, []byte("not the secret")))
		for _, path := range []string{"/", "/mcp", "/healthz/"} {
			resp, _ := get(t, http.MethodGet, w.Addr, path, "")
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the listener serves %s no page", path)
		}
	})
}
