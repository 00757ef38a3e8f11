// Package signinfake is GitHub's side of "Sign in with GitHub" for tests: an OAuth App's
// authorization page (which approves at once, as the person the test says is signed in to GitHub
// in the browser), its code exchange, and GET /user answering that person's id and login. Like
// GitHub it checks the client's id and secret, the redirect URI against the registered callback,
// and the PKCE verifier when the authorization carried a challenge; its errors come as GitHub
// sends them (HTTP 200 with an error field). It records every token /user was read with, so a test
// can tell what reached GitHub.
package signinfake

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// User is a GitHub account.
type User struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
}

// GitHub is the fake. Its zero value is not usable: use New.
type GitHub struct {
	clientID, secret string
	// Callback, when set, is the registered callback URL: redirect_uri must be it (or under it).
	callback string

	mu       sync.Mutex
	browser  User // who is signed in to GitHub in "the browser"
	codes    map[string]grant
	tokens   map[string]User
	seenAuth []string
}

type grant struct {
	user      User
	redirect  string
	challenge string
}

// New is a fake OAuth App with this client id and secret, and the registered callback URL.
func New(clientID, secret, callback string) *GitHub {
	return &GitHub{clientID: clientID, secret: secret, callback: callback, codes: map[string]grant{}, tokens: map[string]User{}}
}

// SignIn makes u the person signed in to GitHub in the browser: the next authorizations are theirs.
func (g *GitHub) SignIn(u User) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.browser = u
}

// SetCallback sets the registered callback URL (when it is known only once the server listens).
func (g *GitHub) SetCallback(callback string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.callback = callback
}

// Authorizations are the Authorization headers GET /user was read with, in order.
func (g *GitHub) Authorizations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.seenAuth...)
}

// Tokens are the access tokens the fake handed out.
func (g *GitHub) Tokens() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]string, 0, len(g.tokens))
	for t := range g.tokens {
		out = append(out, t)
	}
	return out
}

// Handler serves /login/oauth/authorize, /login/oauth/access_token, and GET /user (also under
// /api/v3, as GitHub Enterprise Server has it).
func (g *GitHub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login/oauth/authorize", g.authorize)
	mux.HandleFunc("POST /login/oauth/access_token", g.accessToken)
	mux.HandleFunc("GET /user", g.user)
	mux.HandleFunc("GET /api/v3/user", g.user)
	return mux
}

func random(prefix string) string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

func (g *GitHub) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	g.mu.Lock()
	defer g.mu.Unlock()
	redirect := q.Get("redirect_uri")
	if redirect == "" {
		redirect = g.callback
	}
	switch {
	case q.Get("client_id") != g.clientID:
		http.Error(w, "unknown client_id", http.StatusNotFound)
		return
	case g.callback != "" && !strings.HasPrefix(redirect, g.callback):
		http.Error(w, "The redirect_uri MUST match the registered callback URL for this application.", http.StatusBadRequest)
		return
	case g.browser.ID == 0:
		http.Error(w, "no one is signed in to the fake GitHub", http.StatusUnauthorized)
		return
	case q.Get("code_challenge") != "" && q.Get("code_challenge_method") != "S256":
		http.Error(w, "code_challenge_method must be S256", http.StatusBadRequest)
		return
	}
	code := random("fakecode_")
	g.codes[code] = grant{user: g.browser, redirect: redirect, challenge: q.Get("code_challenge")}
	v := url.Values{"code": {code}}
	if s := q.Get("state"); s != "" {
		v.Set("state", s)
	}
	sep := "?"
	if strings.Contains(redirect, "?") {
		sep = "&"
	}
	http.Redirect(w, r, redirect+sep+v.Encode(), http.StatusFound)
}

func (g *GitHub) accessToken(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	f := r.PostForm
	id, secret := f.Get("client_id"), f.Get("client_secret")
	if u, p, ok := r.BasicAuth(); ok {
		id, secret = u, p
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	fail := func(code string) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": code})
	}
	c, ok := g.codes[f.Get("code")]
	switch {
	case id != g.clientID || secret != g.secret:
		fail("incorrect_client_credentials")
		return
	case !ok:
		fail("bad_verification_code")
		return
	case f.Get("redirect_uri") != "" && f.Get("redirect_uri") != c.redirect:
		fail("redirect_uri_mismatch")
		return
	case c.challenge != "" && !verifierMatches(f.Get("code_verifier"), c.challenge):
		fail("bad_verification_code")
		return
	}
	delete(g.codes, f.Get("code"))
	tok := random("gho_")
	g.tokens[tok] = c.user
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"access_token": tok, "token_type": "bearer", "scope": ""})
}

func verifierMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:]) == challenge
}

func (g *GitHub) user(w http.ResponseWriter, r *http.Request) {
	h := r.Header.Get("Authorization")
	g.mu.Lock()
	g.seenAuth = append(g.seenAuth, h)
	scheme, tok, _ := strings.Cut(h, " ")
	u, ok := g.tokens[tok]
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	if !ok || !(strings.EqualFold(scheme, "bearer") || strings.EqualFold(scheme, "token")) {
		w.WriteHeader(http.StatusUnauthorized)
		_ = json.NewEncoder(w).Encode(map[string]string{"message": "Bad credentials"})
		return
	}
	_ = json.NewEncoder(w).Encode(u)
}
