package front_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
)

// mcpRequest sends one request to /mcp as user (its bearer token), in session id when given.
func mcpRequest(t *testing.T, url, method, user, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url+"/mcp", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tokens[user])
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	client := &http.Client{Timeout: 2 * time.Second}
	resp, err := client.Do(req)
	require.NoError(t, err)
	return resp
}

func TestAnMCPSessionServesOnlyTheUserWhoOpenedItAnotherUsersTokenFindsNoSuchSession(t *testing.T) {
	hs := offline(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"x","version":"1"}}}`
	resp := mcpRequest(t, hs.URL, http.MethodPost, "alice", "", initialize)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	session := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session, "the server opened a session")

	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	// A made-up answer to a form the server put to alice's host (the ids of its requests count up).
	answer := `{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"answer":"merge"}}}`
	tests := []struct {
		name, method, body string
	}{
		{"a request in alice's session", http.MethodPost, ping},
		{"an answer to a question put in alice's session", http.MethodPost, answer},
		{"listening to alice's session's stream", http.MethodGet, ""},
		{"ending alice's session", http.MethodDelete, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := mcpRequest(t, hs.URL, tt.method, "bob", session, tt.body)
			defer resp.Body.Close()
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, "bob's token does not reach alice's session")
		})
	}

	resp = mcpRequest(t, hs.URL, http.MethodPost, "alice", session, ping)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "alice's session still serves her: %s", body)
	assert.Contains(t, string(body), `"id":2`)
}

// TestAnUnknownSessionIdIsNotFoundAndTheClientStartsAgain: an id this process never issued (one
// from before a restart of serve --http, or made up) is 404 for everyone, however often shown;
// the client then initializes a new session, which serves it.
func TestAnUnknownSessionIdIsNotFoundAndTheClientStartsAgain(t *testing.T) {
	hs := offline(t)
	old := offline(t) // the process before the restart
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	resp := mcpRequest(t, old.URL, http.MethodPost, "alice", "", initialize)
	resp.Body.Close()
	before := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, before)

	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	for _, tt := range []struct{ name, user, session string }{
		{"its owner's id from before the restart", "alice", before},
		{"the same id shown by another user, first", "bob", before},
		{"the same id shown again by its owner", "alice", before},
		{"a well-formed id never issued", "bob", "mcp-session-0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := mcpRequest(t, hs.URL, http.MethodPost, tt.user, tt.session, ping)
			resp.Body.Close()
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		})
	}

	resp = mcpRequest(t, hs.URL, http.MethodPost, "alice", "", initialize)
	resp.Body.Close()
	fresh := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, fresh, "a new initialize opens a session")
	resp = mcpRequest(t, hs.URL, http.MethodPost, "alice", fresh, ping)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
}

// TestAfterARestartTheOfficialClientIsToldItsSessionIsGoneAndConnectsAgain: the same address,
// served by a new process (its sessions empty), answers the old session's next call 404; the
// go-sdk client reports its session missing, and a new connection is served.
func TestAfterARestartTheOfficialClientIsToldItsSessionIsGoneAndConnectsAgain(t *testing.T) {
	var current atomic.Pointer[http.Handler]
	serve := func(t *testing.T) {
		c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
		require.NoError(t, err)
		t.Cleanup(c.Close)
		fr, err := front.New(front.Config{Client: c, Users: users(t), Ledger: authledger.NewMemory(time.Now)})
		require.NoError(t, err)
		h := fr.Handler()
		current.Store(&h)
	}
	serve(t)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }))
	t.Cleanup(hs.Close)
	connect := func() *sdk.ClientSession {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1.0"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: teamtest.HTTPClient(tokens["alice"])},
			&sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	old := connect()
	_, err := old.ListTools(ctx, nil)
	require.NoError(t, err)

	serve(t) // the restart
	_, err = old.ListTools(ctx, nil)
	require.ErrorIs(t, err, sdk.ErrSessionMissing, "the old session is not adopted")
	_, err = connect().ListTools(ctx, nil)
	assert.NoError(t, err, "a new session is served")
}
