package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake/signinfake"
)

// oauthClientDir holds the official TypeScript MCP SDK (package.json, package-lock.json) and the
// script that drives its client auth.
const oauthClientDir = "testdata/oauthclient"

// typescriptClient makes sure the TypeScript SDK is installed (npm ci from the lock file) and
// returns node's path; without node and npm the test is skipped.
func typescriptClient(t *testing.T) string {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		t.Skip("needs node and npm for the official TypeScript MCP SDK: apt-get install -y nodejs npm, then npm ci --prefix mcpserver/team/e2e/testdata/oauthclient")
	}
	if _, err := os.Stat(filepath.Join(oauthClientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = oauthClientDir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm ci in %s: %s", oauthClientDir, out)
	}
	return node
}

// signInRun is what the script reports.
type signInRun struct {
	ClientID  string            `json:"client_id"`
	Authorize map[string]string `json:"authorize"`
	Pages     []struct {
		URL    string
		Status int
	} `json:"pages"`
	Iss          string   `json:"iss"`
	FirstAccess  string   `json:"first_access"`
	FirstRefresh string   `json:"first_refresh"`
	Tools        []string `json:"tools"`
	Start        string   `json:"start"`
	Status       string   `json:"status"`
	AfterRefresh string   `json:"after_refresh"`
	Refreshed    bool     `json:"refreshed"`
	SecondAccess string   `json:"second_access"`
	Replay       struct {
		Status int    `json:"status"`
		Error  string `json:"error"`
	} `json:"replay"`
	AfterReplay struct {
		Status          int    `json:"status"`
		WWWAuthenticate string `json:"www_authenticate"`
	} `json:"after_replay"`
}

// TestAHostSignsInWithGitHubByTheMCPAuthorizationText: the official TypeScript SDK's client,
// given only the server's URL, discovers the authorization server, registers (RFC 7591, then by a
// Client ID Metadata Document), signs in through the fake GitHub with PKCE, calls the tools as the
// GitHub user, refreshes when its access token goes bad, and loses the whole sign-in when its
// rotated refresh token is replayed. GitHub's token never reaches the client, nor ours GitHub.
func TestAHostSignsInWithGitHubByTheMCPAuthorizationText(t *testing.T) {
	node := typescriptClient(t)
	d := newDeployment(t, options{})
	second := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}
	d.open(ref, "alice")
	d.open(second, "alice")

	gh := signinfake.New("Iv1.e2efakeclient", "e2e-github-client-secret", "")
	gh.SignIn(signinfake.User{ID: 4242, Login: "alice"})
	ghSrv := httptest.NewServer(gh.Handler())
	t.Cleanup(ghSrv.Close)
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "github-secret"), []byte("e2e-github-client-secret\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "github-users"), []byte("# who may sign in\n4242 alice\n"), 0o600))

	// A client id document, served over https on loopback; the front end trusts its certificate.
	redirect := "http://127.0.0.1:45123/oauth/callback"
	var docURL string
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": docURL, "client_name": "prmonitor e2e (metadata document)",
			"redirect_uris": []string{redirect}, "grant_types": []string{"authorization_code", "refresh_token"}, "token_endpoint_auth_method": "none"})
	}))
	t.Cleanup(docs.Close)
	docURL = docs.URL + "/client.json"
	ca := filepath.Join(d.dir, "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: docs.Certificate().Raw}), 0o600))

	d.worker()
	authKey := filepath.Join(d.dir, "auth-key")
	require.NoError(t, os.WriteFile(authKey, []byte("e2e-auth-key-0123456789abcdef0123456789\n"), 0o600))
	front := teamtest.Start(t, d.bin, []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin", "SSL_CERT_FILE=" + ca}, serveReady,
		"serve", "--http", "127.0.0.1:0", "--temporal", d.srv.HostPort, "--namespace", d.srv.Namespace, "--task-queue", d.queue,
		"--github-client-id", "Iv1.e2efakeclient", "--github-client-secret-file", filepath.Join(d.dir, "github-secret"),
		"--github-users", filepath.Join(d.dir, "github-users"), "--auth-key-file", authKey, "--oauth-github-url", ghSrv.URL,
		"--oauth-loopback-clients", "--auth-tokens", filepath.Join(d.dir, "tokens"))
	base := "http://" + front.Addr
	gh.SetCallback(base + "/oauth/callback")

	res, err := http.Post(base+"/mcp", "application/json", strings.NewReader(`{}`))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	assert.Contains(t, res.Header.Get("WWW-Authenticate"), `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`)

	for _, tc := range []struct {
		name     string
		metadata string
		pr       prstatus.PRRef
	}{
		{"registered by RFC 7591", "", ref},
		{"named by a client id metadata document", docURL, second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "client.mjs")
			cmd.Dir = oauthClientDir
			cmd.Env = append(os.Environ(), "SERVER_URL="+base+"/mcp", "REDIRECT_URL="+redirect, "CLIENT_METADATA_URL="+tc.metadata,
				"PR="+tc.pr.String())
			var stderr strings.Builder
			cmd.Stderr = &stderr
			raw, err := cmd.Output()
			require.NoError(t, err, "the TypeScript client: %s\nthe front end: %s", stderr.String(), front.Stderr())
			var run signInRun
			require.NoError(t, json.Unmarshal(raw, &run), "%s", raw)

			if tc.metadata == "" {
				assert.True(t, strings.HasPrefix(run.ClientID, "pmclient_"), "registered: %q", run.ClientID)
			} else {
				assert.Equal(t, tc.metadata, run.ClientID)
			}
			assert.Equal(t, map[string]string{"code_challenge_method": "S256", "resource": base + "/mcp", "scope": "prmonitor"}, run.Authorize)
			require.Len(t, run.Pages, 1, "one page to approve, the rest redirects: %+v", run.Pages)
			assert.Contains(t, run.Pages[0].URL, base+"/oauth/authorize")
			assert.Equal(t, base, run.Iss)
			assert.Subset(t, run.Tools, []string{"pr_monitor_next_step", "pr_monitor_start", "pr_monitor_status", "pr_monitor_stop"})
			assert.Contains(t, run.Status, tc.pr.String(), "alice's monitor, started as the GitHub user alice")
			assert.Contains(t, run.AfterRefresh, tc.pr.String())
			assert.True(t, run.Refreshed, "the SDK refreshed, and the refresh token rotated")
			assert.NotEqual(t, run.FirstAccess, run.SecondAccess)
			assert.Equal(t, http.StatusBadRequest, run.Replay.Status)
			assert.Equal(t, "invalid_grant", run.Replay.Error)
			assert.Equal(t, http.StatusUnauthorized, run.AfterReplay.Status, "the replay revoked the sign-in")
			assert.Contains(t, run.AfterReplay.WWWAuthenticate, "resource_metadata=")

			for _, ghTok := range gh.Tokens() {
				assert.NotContains(t, string(raw), ghTok, "GitHub's token never reaches the client")
			}
			for _, auth := range gh.Authorizations() {
				assert.True(t, strings.HasPrefix(auth, "Bearer gho_"), "only GitHub's own token reaches GitHub: %q", auth)
			}
			for _, ours := range []string{run.FirstAccess, run.FirstRefresh, run.SecondAccess} {
				assert.NotContains(t, ours, "alice", "our tokens are sealed: they say nothing to whoever holds them")
			}
		})
	}
}
