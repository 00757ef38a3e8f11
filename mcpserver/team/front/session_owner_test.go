package front_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
