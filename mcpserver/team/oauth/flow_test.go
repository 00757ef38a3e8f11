package oauth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMetadataNamesThisServer(t *testing.T) {
	h := newHarness(t)
	get := func(path string) map[string]any {
		res, err := http.Get(h.url + path)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		var m map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&m))
		return m
	}
	for _, path := range []string{pathResourceMeta, pathResourceMeta + "/mcp"} {
		prm := get(path)
		assert.Equal(t, h.url+"/mcp", prm["resource"], path)
		assert.Equal(t, []any{h.url}, prm["authorization_servers"], path)
	}
	asm := get(pathServerMeta)
	assert.Equal(t, h.url, asm["issuer"])
	assert.Equal(t, []any{"S256"}, asm["code_challenge_methods_supported"])
	assert.Equal(t, []any{"code"}, asm["response_types_supported"])
	assert.Equal(t, true, asm["client_id_metadata_document_supported"])
	assert.Equal(t, h.url+pathRegister, asm["registration_endpoint"])
	assert.Equal(t, `Bearer resource_metadata="`+h.url+`/.well-known/oauth-protected-resource/mcp", scope="prmonitor"`, h.srv.Challenge(nil))
}

func TestSignInWithGitHubGivesOurOwnTokens(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	access, refresh := h.signIn(client)
	who, err := h.srv.Verify(t.Context(), access)
	require.NoError(t, err)
	assert.Equal(t, Identity{ID: alice.ID, Login: "alice"}, who)

	status, out := h.refreshCall(client, refresh)
	require.Equal(t, http.StatusOK, status, "%v", out)
	assert.NotEqual(t, refresh, out["refresh_token"], "the refresh token rotates")
	who, err = h.srv.Verify(t.Context(), out["access_token"].(string))
	require.NoError(t, err)
	assert.Equal(t, alice.ID, who.ID)

	// No passthrough: GitHub saw only its own token, the client only ours.
	ghTokens := h.gh.Tokens()
	require.Len(t, ghTokens, 1)
	for _, auth := range h.gh.Authorizations() {
		assert.Equal(t, "Bearer "+ghTokens[0], auth)
	}
	for _, ours := range []string{access, refresh, out["access_token"].(string)} {
		assert.NotContains(t, ours, ghTokens[0])
		assert.True(t, strings.HasPrefix(ours, prefixAccess) || strings.HasPrefix(ours, prefixRefresh))
	}
	for _, ours := range []string{access, refresh} {
		for _, clear := range []string{"alice", "1001", h.url} {
			assert.NotContains(t, ours, clear, "a token is sealed: it says nothing to whoever holds it")
		}
	}
}

// Another replica (or this one after a restart) with the same auth key and ledger honours what
// this one handed out: the token, the registration, the refresh. A server with another key reads
// none of it.
func TestAnyReplicaWithTheKeyAndTheLedgerHonoursWhatAnotherIssued(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	access, refresh := h.signIn(client)
	again, err := New(h.srv.cfg)
	require.NoError(t, err)
	_, err = again.Verify(t.Context(), access)
	require.NoError(t, err)
	_, err = again.client(t.Context(), client)
	require.NoError(t, err, "the registration is read by the other")
	out, err := again.refresh(t.Context(), refresh, client, "")
	require.NoError(t, err)
	assert.NotEmpty(t, out.AccessToken)

	cfg := h.srv.cfg
	cfg.Key = []byte("another-deployment-another-key-0123456789")
	stranger, err := New(cfg)
	require.NoError(t, err)
	_, err = stranger.Verify(t.Context(), access)
	assert.ErrorIs(t, err, ErrUnknownToken)
	_, err = stranger.client(t.Context(), client)
	assert.Error(t, err)
	_, err = stranger.refresh(t.Context(), out.RefreshToken, client, "")
	assert.ErrorContains(t, err, "unknown or expired")
}

func TestTheResourceRefuses(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	cases := []struct {
		name  string
		token func(t *testing.T) string
		srv   func(t *testing.T) *Server
		want  error
	}{
		{"a token this server never issued", func(*testing.T) string { return prefixAccess + "made-up" }, nil, ErrUnknownToken},
		{"a refresh token shown as an access token", func(*testing.T) string { _, r := h.signIn(client); return r }, nil, ErrUnknownToken},
		{"an expired token", func(*testing.T) string {
			a, _ := h.signIn(client)
			h.clock.add(defaultAccessTTL + time.Second)
			return a
		}, nil, ErrExpired},
		{"a revoked token", func(t *testing.T) string {
			a, _ := h.signIn(client)
			require.NoError(t, h.srv.Revoke(t.Context(), a))
			return a
		}, nil, ErrRevoked},
		{"a token issued for another resource (the deployment moved)", func(*testing.T) string { a, _ := h.signIn(client); return a },
			func(t *testing.T) *Server {
				cfg := h.srv.cfg
				cfg.Issuer = "https://prmonitor.elsewhere.example"
				moved, err := New(cfg)
				require.NoError(t, err)
				return moved
			}, ErrAudience},
		{"a user taken off the list", func(*testing.T) string { a, _ := h.signIn(client); return a },
			func(t *testing.T) *Server {
				cfg := h.srv.cfg
				cfg.Allowed = func(Identity) bool { return false }
				off, err := New(cfg)
				require.NoError(t, err)
				return off
			}, ErrNotAllowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token := tc.token(t)
			srv := h.srv
			if tc.srv != nil {
				srv = tc.srv(t)
			}
			_, err := srv.Verify(t.Context(), token)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestTheTokenEndpointRefuses(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	other := h.register(clientRedirect)
	verifier, challenge := pkce("v")
	cases := []struct {
		name   string
		form   func(code string) url.Values
		before func()
		want   string
	}{
		{"no PKCE verifier", func(code string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {clientRedirect}}
		}, nil, "invalid_request"},
		{"a verifier that is not the challenge's", func(code string) url.Values {
			wrong, _ := pkce("w")
			return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {clientRedirect}, "code_verifier": {wrong}}
		}, nil, "invalid_grant"},
		{"another redirect URI than the request's", func(code string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {"http://127.0.0.1:49152/other"}, "code_verifier": {verifier}}
		}, nil, "invalid_grant"},
		{"another client's code", func(code string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {other}, "redirect_uri": {clientRedirect}, "code_verifier": {verifier}}
		}, nil, "invalid_grant"},
		{"another resource", func(code string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {clientRedirect}, "code_verifier": {verifier}, "resource": {"https://else.example/mcp"}}
		}, nil, "invalid_target"},
		{"an expired code", func(code string) url.Values {
			return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {clientRedirect}, "code_verifier": {verifier}}
		}, func() { h.clock.add(codeTTL + time.Second) }, "invalid_grant"},
		{"a grant type not served", func(code string) url.Values {
			return url.Values{"grant_type": {"password"}, "username": {"alice"}, "password": {"x"}, "client_id": {client}}
		}, nil, "unsupported_grant_type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code := h.code(client, clientRedirect, challenge)
			if tc.before != nil {
				tc.before()
			}
			status, out := h.tokenCall(tc.form(code))
			assert.Equal(t, http.StatusBadRequest, status)
			assert.Equal(t, tc.want, out["error"], "%v", out)
			assert.Nil(t, out["access_token"])
		})
	}
}

func TestACodeUsedTwiceRevokesWhatItGave(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	verifier, challenge := pkce("v")
	code := h.code(client, clientRedirect, challenge)
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "redirect_uri": {clientRedirect}, "code_verifier": {verifier}}
	status, first := h.tokenCall(form)
	require.Equal(t, http.StatusOK, status)
	status, second := h.tokenCall(form)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", second["error"])
	_, err := h.srv.Verify(t.Context(), first["access_token"].(string))
	assert.ErrorIs(t, err, ErrRevoked)
}

func TestAReusedRefreshTokenRevokesTheFamily(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	access, refresh := h.signIn(client)
	status, rotated := h.refreshCall(client, refresh)
	require.Equal(t, http.StatusOK, status)

	status, out := h.refreshCall(client, refresh)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", out["error"])
	for _, a := range []string{access, rotated["access_token"].(string)} {
		_, err := h.srv.Verify(t.Context(), a)
		assert.ErrorIs(t, err, ErrRevoked)
	}
	status, out = h.refreshCall(client, rotated["refresh_token"].(string))
	assert.Equal(t, http.StatusBadRequest, status, "the rotated refresh token is revoked too")
	assert.Equal(t, "invalid_grant", out["error"])

	// Another sign-in of the same person is another family, untouched.
	a2, _ := h.signIn(client)
	_, err := h.srv.Verify(t.Context(), a2)
	assert.NoError(t, err)
}

func TestARefreshTokenIsBoundToItsClient(t *testing.T) {
	h := newHarness(t)
	client, other := h.register(clientRedirect), h.register(clientRedirect)
	_, refresh := h.signIn(client)
	status, out := h.refreshCall(other, refresh)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "invalid_grant", out["error"])
	h.clock.add(defaultRefreshTTL + time.Second)
	status, out = h.refreshCall(client, refresh)
	assert.Equal(t, http.StatusBadRequest, status, "expired")
	assert.Equal(t, "invalid_grant", out["error"])
}

func TestTheAuthorizationRequestRefuses(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect, "https://app.example/cb")
	_, challenge := pkce("v")
	cases := []struct {
		name   string
		mutate func(url.Values)
		// status is the page's when the request goes nowhere; else the error sent to the client.
		status int
		err    string
	}{
		{"a redirect URI the client did not register", func(v url.Values) { v.Set("redirect_uri", "https://evil.example/cb") }, http.StatusBadRequest, ""},
		{"a registered https URI with another path", func(v url.Values) { v.Set("redirect_uri", "https://app.example/cb/x") }, http.StatusBadRequest, ""},
		{"a loopback redirect on another host name", func(v url.Values) { v.Set("redirect_uri", "http://localhost:49152/callback") }, http.StatusBadRequest, ""},
		{"an unknown client", func(v url.Values) { v.Set("client_id", "pmclient_nobody") }, http.StatusBadRequest, ""},
		{"a plain PKCE challenge", func(v url.Values) { v.Set("code_challenge_method", "plain") }, 0, "invalid_request"},
		{"no PKCE challenge", func(v url.Values) { v.Del("code_challenge"); v.Del("code_challenge_method") }, 0, "invalid_request"},
		{"a challenge without its method (plain by default)", func(v url.Values) { v.Del("code_challenge_method") }, 0, "invalid_request"},
		{"another resource", func(v url.Values) { v.Set("resource", "https://else.example/mcp") }, 0, "invalid_target"},
		{"a scope not served", func(v url.Values) { v.Set("scope", "repo") }, 0, "invalid_scope"},
		{"the implicit grant", func(v url.Values) { v.Set("response_type", "token") }, 0, "unsupported_response_type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := authParams(client, clientRedirect, challenge)
			tc.mutate(params)
			landed, status, _ := h.authorize(params, "allow")
			if tc.err == "" {
				assert.Nil(t, landed, "the browser must be sent nowhere")
				assert.Equal(t, tc.status, status)
				return
			}
			require.NotNil(t, landed)
			assert.Equal(t, tc.err, landed.Query().Get("error"))
			assert.Empty(t, landed.Query().Get("code"))
			assert.Equal(t, "st-123", landed.Query().Get("state"))
		})
	}
}

func TestALoopbackRedirectMayComeOnAnyPort(t *testing.T) {
	h := newHarness(t)
	client := h.register("http://127.0.0.1/callback")
	verifier, challenge := pkce("v")
	code := h.code(client, "http://127.0.0.1:61234/callback", challenge)
	status, out := h.tokenCall(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client},
		"redirect_uri": {"http://127.0.0.1:61234/callback"}, "code_verifier": {verifier}})
	assert.Equal(t, http.StatusOK, status, "%v", out)
}

func TestThePersonApprovesEachClient(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	_, challenge := pkce("v")
	t.Run("denied", func(t *testing.T) {
		landed, _, _ := h.authorize(authParams(client, clientRedirect, challenge), "deny")
		require.NotNil(t, landed)
		assert.Equal(t, "access_denied", landed.Query().Get("error"))
		assert.Empty(t, h.gh.Tokens(), "GitHub was never asked")
	})
	t.Run("an approval posted from another browser (no cookie)", func(t *testing.T) {
		res, err := h.browser.Get(h.url + pathAuthorize + "?" + authParams(client, clientRedirect, challenge).Encode())
		require.NoError(t, err)
		body := readAll(t, res)
		m := requestField.FindStringSubmatch(body)
		require.NotNil(t, m)
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
		res, err = http.PostForm(h.url+pathConsent, url.Values{"request": {m[1]}, "decision": {"allow"}})
		require.NoError(t, err)
		readAll(t, res)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode)
	})
	t.Run("a GitHub user the deployment does not serve", func(t *testing.T) {
		h.gh.SignIn(mallory)
		defer h.gh.SignIn(alice)
		landed, _, _ := h.authorize(authParams(client, clientRedirect, challenge), "allow")
		require.NotNil(t, landed)
		assert.Equal(t, "access_denied", landed.Query().Get("error"))
		assert.Empty(t, landed.Query().Get("code"))
	})
}

func TestAClientIDMetadataDocument(t *testing.T) {
	var doc map[string]any
	cimd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(cimd.Close)
	id := cimd.URL + "/client.json"
	t.Run("signs in", func(t *testing.T) {
		h := newHarness(t)
		doc = map[string]any{"client_id": id, "client_name": "A host", "redirect_uris": []string{clientRedirect}, "token_endpoint_auth_method": "none"}
		a, _ := h.signIn(id)
		_, err := h.srv.Verify(t.Context(), a)
		require.NoError(t, err)
	})
	refused := []struct {
		name   string
		doc    map[string]any
		mutate func(*Config)
	}{
		{"a document that names another client", map[string]any{"client_id": cimd.URL + "/other.json", "redirect_uris": []string{clientRedirect}}, nil},
		{"a document for a confidential client", map[string]any{"client_id": id, "redirect_uris": []string{clientRedirect}, "token_endpoint_auth_method": "client_secret_basic"}, nil},
		{"a document on a loopback address, in a deployment", map[string]any{"client_id": id, "redirect_uris": []string{clientRedirect}},
			func(c *Config) { c.LoopbackClients = false }},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			var mutate []func(*Config)
			if tc.mutate != nil {
				mutate = append(mutate, tc.mutate)
			}
			h := newHarness(t, mutate...)
			doc = tc.doc
			_, challenge := pkce("v")
			landed, status, _ := h.authorize(authParams(id, clientRedirect, challenge), "allow")
			assert.Nil(t, landed)
			assert.Equal(t, http.StatusBadRequest, status)
		})
	}
}

func TestRegistrationRefuses(t *testing.T) {
	h := newHarness(t)
	cases := []struct{ name, body, want string }{
		{"no redirect URI", `{"client_name":"x"}`, "invalid_redirect_uri"},
		{"plain http off loopback", `{"redirect_uris":["http://app.example/cb"]}`, "invalid_redirect_uri"},
		{"a javascript URI", `{"redirect_uris":["javascript:alert(1)"]}`, "invalid_redirect_uri"},
		{"a fragment", `{"redirect_uris":["https://app.example/cb#x"]}`, "invalid_redirect_uri"},
		{"the implicit grant", `{"redirect_uris":["https://app.example/cb"],"grant_types":["implicit"]}`, "invalid_client_metadata"},
		{"not JSON", `redirect_uris=https://app.example/cb`, "invalid_client_metadata"},
		{"a redirect URI too long to carry", `{"redirect_uris":["https://app.example/` + strings.Repeat("x", maxRedirectURI) + `"]}`, "invalid_redirect_uri"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := http.Post(h.url+pathRegister, "application/json", strings.NewReader(tc.body))
			require.NoError(t, err)
			var out map[string]any
			require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
			res.Body.Close()
			assert.Equal(t, http.StatusBadRequest, res.StatusCode)
			assert.Equal(t, tc.want, out["error"])
		})
	}
}

func TestTheBoardSignsInWithGitHub(t *testing.T) {
	var got Identity
	h := newHarness(t, func(c *Config) {
		c.BoardSignedIn = func(w http.ResponseWriter, _ *http.Request, who Identity) {
			got = who
			w.WriteHeader(http.StatusNoContent)
		}
	})
	res, err := h.browser.Get(h.url + PathBoardSignIn)
	require.NoError(t, err)
	for res.StatusCode/100 == 3 {
		readAll(t, res)
		loc, err := res.Location()
		require.NoError(t, err)
		res, err = h.browser.Get(loc.String())
		require.NoError(t, err)
	}
	readAll(t, res)
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
	assert.Equal(t, Identity{ID: alice.ID, Login: "alice"}, got)
}

func TestRevocationEndpoint(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	access, refresh := h.signIn(client)
	res, err := http.PostForm(h.url+pathRevoke, url.Values{"token": {refresh}, "client_id": {client}})
	require.NoError(t, err)
	readAll(t, res)
	assert.Equal(t, http.StatusOK, res.StatusCode)
	_, err = h.srv.Verify(t.Context(), access)
	assert.ErrorIs(t, err, ErrRevoked)
}

// A registration is sealed into the client id it answers: nothing is stored, so a flood of them
// fills nothing; an id altered by one character, or a sealed value of another kind passed off as
// a client id, is an unknown client; a registration too large for an id is refused.
func TestARegistrationIsSealedInItsClientID(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	got, err := h.srv.client(t.Context(), client)
	require.NoError(t, err)
	assert.Equal(t, []string{clientRedirect}, got.RedirectURIs)
	assert.Equal(t, "Test host", got.Name)

	flipped := []byte(client)
	flipped[len(flipped)-5] ^= 1
	access, _ := h.signIn(client)
	for name, id := range map[string]string{
		"one character altered":          string(flipped),
		"an access token's sealed value": prefixClient + strings.TrimPrefix(access, prefixAccess),
		"made up":                        prefixClient + "abc",
	} {
		_, err := h.srv.client(t.Context(), id)
		assert.Error(t, err, name)
	}

	var uris []string
	for i := range maxRedirectURIs {
		uris = append(uris, fmt.Sprintf("https://app.example/%s/%d", strings.Repeat("x", 200), i))
	}
	body, _ := json.Marshal(map[string]any{"redirect_uris": uris})
	res, err := http.Post(h.url+pathRegister, "application/json", strings.NewReader(string(body)))
	require.NoError(t, err)
	assert.Contains(t, readAll(t, res), "the registration is too large")
	assert.Equal(t, http.StatusBadRequest, res.StatusCode)
}

func TestTwoSignInsAtOnceInOneBrowserBothFinish(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	_, challenge := pkce("v")
	consentPage := func() string {
		res, err := h.browser.Get(h.url + pathAuthorize + "?" + authParams(client, clientRedirect, challenge).Encode())
		require.NoError(t, err)
		m := requestField.FindStringSubmatch(readAll(t, res))
		require.NotNil(t, m)
		return m[1]
	}
	first, second := consentPage(), consentPage()
	for _, id := range []string{second, first} {
		res, err := h.browser.PostForm(h.url+pathConsent, url.Values{"request": {id}, "decision": {"allow"}})
		require.NoError(t, err)
		for res.StatusCode/100 == 3 {
			readAll(t, res)
			loc, err := res.Location()
			require.NoError(t, err)
			if strings.HasPrefix(loc.String(), clientRedirect) {
				assert.NotEmpty(t, loc.Query().Get("code"), "landed at %s", loc)
				break
			}
			res, err = h.browser.Get(loc.String())
			require.NoError(t, err)
		}
		assert.Equal(t, http.StatusFound, res.StatusCode)
	}
}

func TestARequestThatNamedNoRedirectURIIsExchangedWithoutOne(t *testing.T) {
	h := newHarness(t)
	client := h.register(clientRedirect)
	verifier, challenge := pkce("v")
	params := authParams(client, clientRedirect, challenge)
	params.Del("redirect_uri")
	landed, status, page := h.authorize(params, "allow")
	require.NotNil(t, landed, "stopped at %d: %s", status, page)
	code := landed.Query().Get("code")
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {client}, "code_verifier": {verifier}}
	status, out := h.tokenCall(form)
	assert.Equal(t, http.StatusOK, status, "%v", out)
}

// The sign-in under way rides in the browser's cookie: at the bounds of what a request may carry
// (a redirect URI and a state of the largest sizes taken) it stays within the 4 KiB a browser keeps.
func TestASignInUnderWayFitsInItsCookie(t *testing.T) {
	h := newHarness(t)
	redirect := "https://app.example/" + strings.Repeat("r", maxRedirectURI-len("https://app.example/"))
	client := h.register(redirect)
	_, challenge := pkce("v")
	q := authParams(client, redirect, challenge)
	q.Set("state", strings.Repeat("s", maxState))
	res, err := h.browser.Get(h.url + pathAuthorize + "?" + q.Encode())
	require.NoError(t, err)
	page := readAll(t, res)
	require.Equal(t, http.StatusOK, res.StatusCode, page)
	var cookie string
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, cookieSignIn) {
			cookie = c
		}
	}
	require.NotEmpty(t, cookie)
	t.Logf("the sign-in cookie at the bounds: %d bytes", len(cookie))
	assert.Less(t, len(cookie), 4096, "the whole Set-Cookie line")
}
