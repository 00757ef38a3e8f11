package oauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
	"github.com/prmonitor/prmonitor/prstatus/githubfake/signinfake"
)

var (
	alice   = signinfake.User{ID: 1001, Login: "alice"}
	mallory = signinfake.User{ID: 6666, Login: "mallory"}
)

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// harness is the server on loopback, GitHub's fake beside it, and a browser with cookies.
type harness struct {
	t       *testing.T
	srv     *Server
	url     string
	gh      *signinfake.GitHub
	clock   *clock
	browser *http.Client
	ledger  *authledger.Memory
}

// testKey is the tests' auth key.
var testKey = []byte("0123456789abcdef0123456789abcdef-test-auth-key")

const (
	ghClient = "Iv1.fakeclientid"
	ghSecret = "fake-client-secret"
	// clientRedirect is where the test's client hears the answer; nothing listens there: the
	// browser stops at the redirect.
	clientRedirect = "http://127.0.0.1:49152/callback"
)

func newHarness(t *testing.T, mutate ...func(*Config)) *harness {
	t.Helper()
	h := &harness{t: t, clock: &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}}
	h.ledger = authledger.NewMemory(h.clock.now)
	h.gh = signinfake.New(ghClient, ghSecret, "")
	h.gh.SignIn(alice)
	ghSrv := httptest.NewServer(h.gh.Handler())
	t.Cleanup(ghSrv.Close)
	var handler atomic.Pointer[http.Handler] // set once the server exists
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := handler.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(front.Close)
	h.url = front.URL
	cfg := Config{Issuer: front.URL, GitHub: GitHub{ClientID: ghClient, ClientSecret: ghSecret, WebURL: ghSrv.URL},
		Allowed: func(who Identity) bool { return who.ID == alice.ID }, Key: testKey, Ledger: h.ledger, Now: h.clock.now, LoopbackClients: true}
	for _, m := range mutate {
		m(&cfg)
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	h.gh.SetCallback(srv.CallbackURL())
	routes := srv.Handler()
	h.srv = srv
	handler.Store(&routes)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	h.browser = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return h
}

// register registers a client by RFC 7591 and returns its id.
func (h *harness) register(redirects ...string) string {
	h.t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": "Test host", "redirect_uris": redirects})
	res, err := http.Post(h.url+pathRegister, "application/json", strings.NewReader(string(body)))
	require.NoError(h.t, err)
	defer res.Body.Close()
	require.Equal(h.t, http.StatusCreated, res.StatusCode)
	var out map[string]any
	require.NoError(h.t, json.NewDecoder(res.Body).Decode(&out))
	return out["client_id"].(string)
}

// pkce is a verifier and its S256 challenge.
func pkce(seed string) (verifier, challenge string) {
	verifier = strings.Repeat(seed, 43/len(seed)+1)[:43]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

var requestField = regexp.MustCompile(`name="request" value="([^"]+)"`)

// authorize runs the browser through an authorization request: the consent page (approved with
// decision), GitHub, back; it returns where the browser was sent last (the client's redirect URI
// with a code or an error), or the page that stopped it (status and body) when it went nowhere.
func (h *harness) authorize(params url.Values, decision string) (landed *url.URL, status int, page string) {
	h.t.Helper()
	res, err := h.browser.Get(h.url + pathAuthorize + "?" + params.Encode())
	require.NoError(h.t, err)
	for {
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode/100 != 3 {
			m := requestField.FindSubmatch(body)
			if m == nil || decision == "" {
				return nil, res.StatusCode, string(body)
			}
			res, err = h.browser.PostForm(h.url+pathConsent, url.Values{"request": {string(m[1])}, "decision": {decision}})
			require.NoError(h.t, err)
			decision = ""
			continue
		}
		loc, err := res.Location()
		require.NoError(h.t, err)
		if !strings.HasPrefix(loc.String(), h.url) && !strings.HasPrefix(loc.String(), h.ghURL()) {
			return loc, res.StatusCode, ""
		}
		res, err = h.browser.Get(loc.String())
		require.NoError(h.t, err)
	}
}

func (h *harness) ghURL() string { return h.srv.cfg.GitHub.WebURL }

// authParams is a good authorization request of client.
func authParams(client, redirect, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st-123"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {Scope}}
}

// code signs in and returns the code the client was sent.
func (h *harness) code(client, redirect, challenge string) string {
	h.t.Helper()
	landed, status, page := h.authorize(authParams(client, redirect, challenge), "allow")
	require.NotNil(h.t, landed, "stopped at %d: %s", status, page)
	require.Equal(h.t, "st-123", landed.Query().Get("state"))
	require.Equal(h.t, h.url, landed.Query().Get("iss"))
	require.NotEmpty(h.t, landed.Query().Get("code"), "landed at %s", landed)
	return landed.Query().Get("code")
}

// tokenCall posts form to the token endpoint.
func (h *harness) tokenCall(form url.Values) (int, map[string]any) {
	h.t.Helper()
	res, err := http.PostForm(h.url+pathToken, form)
	require.NoError(h.t, err)
	defer res.Body.Close()
	var out map[string]any
	require.NoError(h.t, json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, out
}

// signIn goes through the whole flow and returns the tokens.
func (h *harness) signIn(client string) (access, refresh string) {
	h.t.Helper()
	verifier, challenge := pkce("v")
	code := h.code(client, clientRedirect, challenge)
	status, out := h.tokenCall(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client},
		"redirect_uri": {clientRedirect}, "code_verifier": {verifier}, "resource": {h.srv.Resource()}})
	require.Equal(h.t, http.StatusOK, status, "%v", out)
	return out["access_token"].(string), out["refresh_token"].(string)
}

// refreshCall rotates refresh for client.
func (h *harness) refreshCall(client, refresh string) (int, map[string]any) {
	return h.tokenCall(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {client}})
}
