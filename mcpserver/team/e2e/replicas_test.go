package e2e

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus/githubfake/signinfake"
)

// balancer is the load balancer in front of the replicas: every request goes to the replica the
// test names for the next step, as a real one may send a browser's next request anywhere.
type balancer struct {
	url    string
	target atomic.Pointer[url.URL]
}

func newBalancer(t *testing.T) *balancer {
	b := &balancer{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(b.target.Load())
		r.Out.Host = r.In.Host // the replicas see the deployment's own address, as behind a real one
	}}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	b.url = srv.URL
	return b
}

// to sends what follows to the replica at base.
func (b *balancer) to(t *testing.T, base string) {
	u, err := url.Parse(base)
	require.NoError(t, err)
	b.target.Store(u)
}

// replicaFlow is a person's browser and an MCP host signing in through the balancer.
type replicaFlow struct {
	t       *testing.T
	lb      *balancer
	browser *http.Client
	client  string
}

var consentRequest = regexp.MustCompile(`name="request" value="([^"]+)"`)

const replicaRedirect = "http://127.0.0.1:45124/oauth/callback"

// form posts v to the balancer's path and decodes a JSON answer.
func (f *replicaFlow) form(path string, v url.Values, header ...string) (int, map[string]any) {
	f.t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.lb.url+path, strings.NewReader(v.Encode()))
	require.NoError(f.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := f.browser.Do(req)
	require.NoError(f.t, err)
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

// signIn runs one sign-in with each step on the replica given: the authorization request and
// GitHub's answer on begin, the approval and the code's exchange on finish.
func (f *replicaFlow) signIn(begin, finish string) (access, refresh, code, verifier string) {
	f.t.Helper()
	verifier = strings.Repeat("replica-verifier-", 4)[:64]
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {f.client}, "redirect_uri": {replicaRedirect}, "state": {"st-1"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "scope": {"prmonitor"}}
	f.lb.to(f.t, begin)
	res, err := f.browser.Get(f.lb.url + "/oauth/authorize?" + q.Encode())
	require.NoError(f.t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := consentRequest.FindSubmatch(page)
	require.NotNil(f.t, m, "the approval page: %d %s", res.StatusCode, page)

	f.lb.to(f.t, finish)
	res, err = f.browser.PostForm(f.lb.url+"/oauth/consent", url.Values{"request": {string(m[1])}, "decision": {"allow"}})
	require.NoError(f.t, err)
	res.Body.Close()
	require.Equal(f.t, http.StatusSeeOther, res.StatusCode, "the other replica takes the approval of a sign-in it did not begin")
	toGitHub, err := res.Location()
	require.NoError(f.t, err)
	res, err = f.browser.Get(toGitHub.String())
	require.NoError(f.t, err)
	res.Body.Close()
	back, err := res.Location()
	require.NoError(f.t, err)

	f.lb.to(f.t, begin)
	res, err = f.browser.Get(back.String())
	require.NoError(f.t, err)
	res.Body.Close()
	landed, err := res.Location()
	require.NoError(f.t, err, "GitHub's answer finishes on the replica that began")
	code = landed.Query().Get("code")
	require.NotEmpty(f.t, code, "landed at %s", landed)

	f.lb.to(f.t, finish)
	status, out := f.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {f.client},
		"redirect_uri": {replicaRedirect}, "code_verifier": {verifier}})
	require.Equal(f.t, http.StatusOK, status, "the code is exchanged on the other replica: %v", out)
	return out["access_token"].(string), out["refresh_token"].(string), code, verifier
}

// read is GET /api/monitors on replica base with a bearer token or the browser's cookie.
func (f *replicaFlow) read(base, bearer string) int {
	f.t.Helper()
	f.lb.to(f.t, base)
	req, err := http.NewRequest(http.MethodGet, f.lb.url+"/api/monitors", nil)
	require.NoError(f.t, err)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := f.browser.Do(req)
	require.NoError(f.t, err)
	res.Body.Close()
	return res.StatusCode
}

// TestAnyFrontEndReplicaFinishesWhatAnotherBegan: two front-end processes on one Temporal server,
// behind a balancer that sends each step where the test says. A sign-in begun on one is approved,
// answered and exchanged across both; a refresh on the other is honoured; the rotated refresh
// token replayed on the first revokes the sign-in everywhere; a code exchanged on one is refused
// on the other (and revokes what it gave); a revocation and a board sign-out on one are honoured
// by the other.
func TestAnyFrontEndReplicaFinishesWhatAnotherBegan(t *testing.T) {
	d := newDeployment(t, options{})
	gh := signinfake.New("Iv1.e2ereplicas", "e2e-replicas-secret", "")
	gh.SignIn(signinfake.User{ID: 4242, Login: "alice"})
	ghSrv := httptest.NewServer(gh.Handler())
	t.Cleanup(ghSrv.Close)
	for name, content := range map[string]string{"github-secret": "e2e-replicas-secret\n", "github-users": "4242 alice\n",
		"auth-key": "e2e-replicas-auth-key-0123456789abcdef\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(d.dir, name), []byte(content), 0o600))
	}
	lb := newBalancer(t)
	gh.SetCallback(lb.url + "/oauth/callback")
	replica := func() string {
		p := teamtest.Start(t, d.bin, []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}, serveReady,
			"serve", "--http", "127.0.0.1:0", "--public-url", lb.url, "--temporal", d.srv.HostPort, "--namespace", d.srv.Namespace,
			"--task-queue", d.queue, "--github-client-id", "Iv1.e2ereplicas", "--github-client-secret-file", filepath.Join(d.dir, "github-secret"),
			"--github-users", filepath.Join(d.dir, "github-users"), "--auth-key-file", filepath.Join(d.dir, "auth-key"),
			"--oauth-github-url", ghSrv.URL, "--auth-tokens", filepath.Join(d.dir, "tokens"))
		return "http://" + p.Addr
	}
	a, b := replica(), replica()

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	f := &replicaFlow{t: t, lb: lb, browser: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	lb.to(t, a)
	body, _ := json.Marshal(map[string]any{"client_name": "replicas e2e", "redirect_uris": []string{replicaRedirect}})
	res, err := http.Post(lb.url+"/oauth/register", "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	var reg map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&reg))
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode, "%v", reg)
	f.client = reg["client_id"].(string)

	access, _, code, verifier := f.signIn(a, b) // registered on a; the sign-in begun on a, finished on b
	assert.Equal(t, http.StatusOK, f.read(a, access), "a token b issued reads a")
	assert.Equal(t, http.StatusOK, f.read(b, access))

	lb.to(t, a)
	status, out := f.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {f.client},
		"redirect_uri": {replicaRedirect}, "code_verifier": {verifier}})
	assert.Equal(t, http.StatusBadRequest, status, "the code b exchanged is refused on a: %v", out)
	assert.Contains(t, out["error_description"], "already used")
	assert.Equal(t, http.StatusUnauthorized, f.read(b, access), "and what it gave is revoked on b")

	access, refresh, _, _ := f.signIn(b, a)
	lb.to(t, b)
	status, out = f.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {f.client}})
	require.Equal(t, http.StatusOK, status, "a refresh on b of a sign-in a finished: %v", out)
	second := out["access_token"].(string)
	assert.Equal(t, http.StatusOK, f.read(a, second))
	lb.to(t, a)
	status, out = f.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {f.client}})
	assert.Equal(t, http.StatusBadRequest, status, "the rotated refresh token replayed on a: %v", out)
	assert.Contains(t, out["error_description"], "already used")
	assert.Equal(t, http.StatusUnauthorized, f.read(b, second), "the replay on a revoked the sign-in on b")
	assert.Equal(t, http.StatusUnauthorized, f.read(b, access))

	access, _, _, _ = f.signIn(a, b)
	lb.to(t, a)
	status, _ = f.form("/oauth/revoke", url.Values{"token": {access}})
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, http.StatusUnauthorized, f.read(b, access), "revoked on a, refused on b")

	lb.to(t, a)
	status, _ = f.form("/login", nil, "Authorization", "Bearer "+tokens["alice"])
	require.Equal(t, http.StatusNoContent, status, "the board's sign-in on a")
	assert.Equal(t, http.StatusOK, f.read(b, ""), "b reads a's board cookie (the key is shared)")
	lb.to(t, b)
	status, _ = f.form("/logout", nil)
	require.Equal(t, http.StatusNoContent, status)
	kept := jar.Cookies(mustURL(t, lb.url))
	assert.Empty(t, kept, "the browser dropped the cookie")
	f.browser.Jar = keepJar(t, lb.url, signedIn(t, f, a))
	assert.Equal(t, http.StatusOK, f.read(b, ""), "a fresh board session reads b")
	cookie := f.browser.Jar.Cookies(mustURL(t, lb.url))
	lb.to(t, a)
	status, _ = f.form("/logout", nil)
	require.Equal(t, http.StatusNoContent, status, "signed out on a")
	f.browser.Jar = keepJar(t, lb.url, cookie) // the same cookie, kept by another tab
	assert.Equal(t, http.StatusUnauthorized, f.read(b, ""), "the session signed out on a reads nothing on b")
}

// signedIn signs the board in on replica base with alice's bearer token and returns its cookies.
func signedIn(t *testing.T, f *replicaFlow, base string) []*http.Cookie {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	f.browser.Jar = jar
	f.lb.to(t, base)
	status, _ := f.form("/login", nil, "Authorization", "Bearer "+tokens["alice"])
	require.Equal(t, http.StatusNoContent, status)
	return jar.Cookies(mustURL(t, f.lb.url))
}

// keepJar is a cookie jar holding cookies for base.
func keepJar(t *testing.T, base string, cookies []*http.Cookie) http.CookieJar {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	jar.SetCookies(mustURL(t, base), cookies)
	return jar
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u
}
