package front_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
)

// offline is the front end with a Temporal client that never connects: enough for what needs no
// monitor (the tools' contract, authentication).
func offline(t *testing.T) *httptest.Server {
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	fr, err := front.New(front.Config{Client: c, Users: users(t), Ledger: authledger.NewMemory(time.Now)})
	require.NoError(t, err)
	hs := httptest.NewServer(fr.Handler())
	t.Cleanup(hs.Close)
	return hs
}

func TestOverHTTPTheToolsAreTheEmbeddedServersToolsInBothEras(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) {
			hs := offline(t)
			c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1.0"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp",
				HTTPClient: teamtest.HTTPClient(tokens["alice"])}, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
			require.NoError(t, err)
			defer s.Close()
			listed, err := s.ListTools(ctx, nil)
			require.NoError(t, err)
			want, err := contract.Tools(contract.ToolOptions{})
			require.NoError(t, err)
			require.Len(t, listed.Tools, len(want))
			served := map[string]map[string]any{}
			for _, tool := range listed.Tools {
				served[tool.Name] = fields(t, tool)
			}
			for _, tool := range want {
				assert.Equal(t, fields(t, tool), served[tool.Name], "tool %s: name, description, schemas and annotations as stdio serves them", tool.Name)
			}
			prompts, err := s.ListPrompts(ctx, nil)
			require.NoError(t, err)
			var names []string
			for _, p := range prompts.Prompts {
				names = append(names, p.Name)
			}
			assert.ElementsMatch(t, []string{"watch_pr", "watch_all"}, names)
			assert.Contains(t, s.InitializeResult().Instructions, "pr_monitor_next_step")
		})
	}
}

// fields are a tool's contract as JSON: name, title, description, schemas, annotations.
func fields(t *testing.T, tool any) map[string]any {
	b, err := json.Marshal(tool)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	out := map[string]any{}
	for _, k := range []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations"} {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func TestEveryRequestWithoutAKnownBearerTokenIsRefusedWith401(t *testing.T) {
	hs := offline(t)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	tests := []struct {
		name, method, path, auth string
	}{
		{"MCP without a token", http.MethodPost, "/mcp", ""},
		{"MCP with an unknown token", http.MethodPost, "/mcp", "Bearer not-a-token"},
		{"MCP with the hash instead of the token", http.MethodPost, "/mcp", "Bearer " + strings.Fields(usersFile())[6]},
		{"MCP with another scheme", http.MethodPost, "/mcp", "Basic " + tokens["alice"]},
		{"MCP's stream without a token", http.MethodGet, "/mcp", ""},
		{"the board's data without a session", http.MethodGet, "/api/monitors", ""},
		{"the board's events without a session", http.MethodGet, "/events", ""},
		{"a sign-in with a wrong token", http.MethodPost, "/login", "Bearer nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, hs.URL+tt.path, strings.NewReader(initialize))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.auth != "" {
				req.Header.Set("Authorization", tt.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "%s", body)
			assert.NotContains(t, string(body), "jsonrpc", "nothing of MCP answered")
		})
	}
}

func TestTheUsersFileTakesOneUserHashAndGitHubIDPerLineAndSaysWhichLineIsWrong(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	tests := []struct {
		name, file, err string
	}{
		{"comments and blank lines", "# team\n\nalice " + hash + " 583231\n", ""},
		{"a line of before ids: the id is asked for, and how to find it", "alice " + hash + "\n",
			`line 1: the user's GitHub user id is missing: want LOGIN SHA256HEX GITHUB_USER_ID (the id is GET /users/LOGIN's "id", e.g. gh api users/alice --jq .id)`},
		{"a token instead of its hash", "alice secret-token 583231\n", "line 1: the second field must be the 64 hex digits"},
		{"four fields", "alice " + hash + " 583231 extra\n", "line 1: want LOGIN SHA256HEX GITHUB_USER_ID"},
		{"an id that is no number", "alice " + hash + " octocat\n", "line 1: the third field must be the user's GitHub user id"},
		{"an id of zero", "alice " + hash + " 0\n", "line 1: the third field must be the user's GitHub user id"},
		{"a user that is no login", "al:ice " + hash + " 1\n", "line 1: the user must be a GitHub login"},
		{"a login GitHub would refuse", "-alice " + hash + " 1\n", "line 1: the user must be a GitHub login"},
		{"a user twice, whatever the case", "alice " + hash + " 1\nAlice " + strings.Repeat("cd", 32) + " 2\n", "line 2: user alice is named twice"},
		{"one id under two logins", "alice " + hash + " 1\nbob " + strings.Repeat("cd", 32) + " 1\n", "line 2: GitHub user id 1 is named twice"},
		{"one hash for two users", "alice " + hash + " 1\nbob " + hash + " 2\n", "line 2: that token hash is another user's too"},
		{"no user at all", "# nobody\n", "no users"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := front.ParseUsers(strings.NewReader(tt.file))
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

func TestTheBoardsSignInTakesTheTokenOnceInAHeaderAndGivesAnHttpOnlySessionCookie(t *testing.T) {
	hs := offline(t)
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/login", nil)
	req.Header.Set("Authorization", "Bearer "+tokens["bob"])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	cookies := resp.Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.NotContains(t, c.Value, tokens["bob"], "the session is not the token")

	get := func(cookie *http.Cookie) int {
		req, _ := http.NewRequest(http.MethodGet, hs.URL+"/api/monitors", nil)
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.NotEqual(t, http.StatusUnauthorized, get(c), "the session lets the board's reads through (Temporal is down here)")
	forged := *c
	forged.Value = strings.Replace(c.Value, ".", "x.", 1)
	assert.Equal(t, http.StatusUnauthorized, get(&forged), "a cookie this process did not sign is refused")

	req, _ = http.NewRequest(http.MethodPost, hs.URL+"/logout", nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.NotEmpty(t, resp.Cookies())
	assert.Negative(t, resp.Cookies()[0].MaxAge, "sign-out drops the cookie")
}

// The board's cookie is Secure (and named __Host-) when the browser's connection was HTTPS. A
// proxy's X-Forwarded-Proto says so only when the operator said a TLS proxy is in front
// (--behind-tls-proxy); otherwise anyone could send the header, and it is ignored.
func TestTheBoardsCookieTrustsXForwardedProtoOnlyBehindATLSProxy(t *testing.T) {
	tests := []struct {
		name        string
		behind      bool
		proto       string
		secure      bool
		cookieNamed string
	}{
		{"plain HTTP, no header", false, "", false, "prmonitor-board"},
		{"plain HTTP, the header sent by anyone", false, "https", false, "prmonitor-board"},
		{"behind a TLS proxy that says https", true, "https", true, "__Host-prmonitor-board"},
		{"behind a TLS proxy that says http", true, "http", false, "prmonitor-board"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1", Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
			require.NoError(t, err)
			t.Cleanup(c.Close)
			fr, err := front.New(front.Config{Client: c, Users: users(t), Ledger: authledger.NewMemory(time.Now), BehindTLSProxy: tt.behind})
			require.NoError(t, err)
			hs := httptest.NewServer(fr.Handler())
			t.Cleanup(hs.Close)
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/login", nil)
			req.Header.Set("Authorization", "Bearer "+tokens["bob"])
			if tt.proto != "" {
				req.Header.Set("X-Forwarded-Proto", tt.proto)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			require.Equal(t, http.StatusNoContent, resp.StatusCode)
			require.Len(t, resp.Cookies(), 1)
			assert.Equal(t, tt.secure, resp.Cookies()[0].Secure)
			assert.Equal(t, tt.cookieNamed, resp.Cookies()[0].Name)
		})
	}
}
