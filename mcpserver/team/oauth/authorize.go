package oauth

import (
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/oauth2"
)

// The browser's cookie for a sign-in under way: it binds GitHub's answer to the browser that
// asked, and makes the approval a same-site POST (SameSite=Lax: sent on GitHub's redirect back,
// never on another site's POST). One cookie per sign-in, so two hosts signing in at once in one
// browser do not undo each other.
const (
	cookieSignIn       = "prmonitor-signin-"
	cookieSignInSecure = "__Host-prmonitor-signin-"
)

func (s *Server) secure() bool { return strings.HasPrefix(s.cfg.Issuer, "https://") }

// signInCookie is the name of sign-in id's cookie.
func (s *Server) signInCookie(id string) string {
	name := cookieSignIn
	if s.secure() {
		name = cookieSignInSecure
	}
	if len(id) > 12 {
		id = id[:12]
	}
	return name + id
}

func (s *Server) setSignInCookie(w http.ResponseWriter, id, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: s.signInCookie(id), Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.secure()})
}

// authorize serves the client's authorization request. A request that cannot be trusted to name
// where to send the answer (an unknown client, a redirect URI it did not register) gets an error
// page and goes nowhere; any other fault is sent back to the client (RFC 6749 §4.1.2.1). A good
// request is shown to the person to approve.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	client, err := s.client(r.Context(), q.Get("client_id"))
	if err != nil {
		s.page(w, http.StatusBadRequest, "This sign-in cannot go on", "The application asking is not one this server knows: "+err.Error()+".")
		return
	}
	given := q.Get("redirect_uri")
	redirect := given
	if redirect == "" && len(client.RedirectURIs) == 1 {
		redirect = client.RedirectURIs[0]
	}
	if !redirectMatches(client.RedirectURIs, redirect) {
		s.page(w, http.StatusBadRequest, "This sign-in cannot go on", "The application asked to be answered at an address it did not register.")
		return
	}
	fail := func(code, description string) {
		s.redirectError(w, r, redirect, q.Get("state"), code, description)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "only response_type=code is served")
	case q.Get("code_challenge") == "":
		fail("invalid_request", "code_challenge is required (PKCE, S256)")
	case q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256")
	case len(q.Get("code_challenge")) != 43:
		fail("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
	case q.Get("resource") != "" && q.Get("resource") != s.Resource():
		fail("invalid_target", "this server grants access to "+s.Resource()+" only")
	case !scopeOK(q.Get("scope")):
		fail("invalid_scope", "the one scope served is "+Scope)
	case len(q.Get("state")) > maxState:
		fail("invalid_request", fmt.Sprintf("state is longer than %d characters", maxState))
	default:
		p := &pending{ID: randomID(), Client: hashOf(client.ID), RedirectURI: redirect, RedirectGiven: given != "", State: q.Get("state"),
			Challenge: q.Get("code_challenge"), Resource: s.Resource(), Scope: Scope, GHVerifier: oauth2.GenerateVerifier(), Created: s.cfg.Now()}
		if err := s.keepPending(w, p); err != nil {
			s.page(w, http.StatusInternalServerError, "This sign-in cannot go on", "Try again.")
			return
		}
		s.consentPage(w, p, client)
	}
}

// scopeOK: no scope, or only ours.
func scopeOK(scope string) bool {
	for _, f := range strings.Fields(scope) {
		if f != Scope {
			return false
		}
	}
	return true
}

// redirectError sends an error to the client's (checked) redirect URI.
func (s *Server) redirectError(w http.ResponseWriter, r *http.Request, redirect, state, code, description string) {
	v := url.Values{"error": {code}, "error_description": {description}, "iss": {s.cfg.Issuer}}
	if state != "" {
		v.Set("state", state)
	}
	http.Redirect(w, r, withQuery(redirect, v), http.StatusFound)
}

// withQuery adds v to the query of raw.
func withQuery(raw string, v url.Values) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// consent serves the approval's POST: allowed, the person goes on to GitHub; denied, the client
// hears access_denied.
func (s *Server) consent(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		s.page(w, http.StatusBadRequest, "This sign-in cannot go on", "The form could not be read.")
		return
	}
	id := r.PostForm.Get("request")
	p, ok := s.pendingOf(r, id)
	if !ok || p.Board {
		s.page(w, http.StatusBadRequest, "This sign-in cannot go on", "It expired, or was started in another browser. Start it again from your application.")
		return
	}
	if r.PostForm.Get("decision") != "allow" {
		s.forgetPending(w, id)
		s.redirectError(w, r, p.RedirectURI, p.State, "access_denied", "the person did not allow the application")
		return
	}
	p.Consented = true
	if err := s.keepPending(w, p); err != nil {
		s.page(w, http.StatusInternalServerError, "This sign-in cannot go on", "Try again.")
		return
	}
	http.Redirect(w, r, s.githubURL(p), http.StatusSeeOther)
}

// boardSignIn starts the board's sign-in: the board is this server's own page, so there is
// nothing to approve; straight to GitHub.
func (s *Server) boardSignIn(w http.ResponseWriter, r *http.Request) {
	if s.cfg.BoardSignedIn == nil {
		http.NotFound(w, r)
		return
	}
	p := &pending{ID: randomID(), Board: true, Consented: true, GHVerifier: oauth2.GenerateVerifier(), Created: s.cfg.Now()}
	if err := s.keepPending(w, p); err != nil {
		s.page(w, http.StatusInternalServerError, "Not signed in", "Try again.")
		return
	}
	http.Redirect(w, r, s.githubURL(p), http.StatusFound)
}

// githubURL is GitHub's authorization page for p, with PKCE towards GitHub too.
func (s *Server) githubURL(p *pending) string {
	return s.github.AuthCodeURL(p.ID, oauth2.S256ChallengeOption(p.GHVerifier), oauth2.SetAuthURLParam("allow_signup", "false"))
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · prmonitor</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}
@media (prefers-color-scheme: dark){body{color:#e6edf3;background:#0d1117}}
button{font:inherit;min-height:44px;padding:.5rem 1.25rem;margin:.25rem .5rem .25rem 0;border-radius:6px;border:1px solid #8c959f;cursor:pointer}
button[value=allow]{background:#1f883d;color:#fff;border-color:#1f883d} code{word-break:break-all}</style></head>
<body><h1>{{.Title}}</h1>{{if .Request}}
<p>The application <strong>{{.Name}}</strong> asks to use prmonitor as you: to start, follow and stop the monitors of your pull requests, and to hear your answers.</p>
<p>It will be answered at <code>{{.Redirect}}</code>.<br>Its client id is <code>{{.ClientID}}</code>.</p>
<p>If you did not just add this server to an application, choose Deny.</p>
<form method="post" action="consent"><input type="hidden" name="request" value="{{.Request}}">
<button type="submit" name="decision" value="allow">Allow, and sign in with GitHub</button>
<button type="submit" name="decision" value="deny">Deny</button></form>
{{else}}<p>{{.Text}}</p>{{end}}</body></html>
`))

type pageData struct {
	Title, Text                       string
	Name, Redirect, ClientID, Request string
}

func (s *Server) consentPage(w http.ResponseWriter, p *pending, client *regClient) {
	name := client.Name
	if name == "" {
		name = "(an application that gave no name)"
	}
	s.render(w, http.StatusOK, pageData{Title: "Allow this application?", Name: name, Redirect: p.RedirectURI, ClientID: client.ID, Request: p.ID})
}

// page is a message for the person, in the browser.
func (s *Server) page(w http.ResponseWriter, status int, title, text string) {
	s.render(w, status, pageData{Title: title, Text: text})
}

func (s *Server) render(w http.ResponseWriter, status int, d pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// No script at all, never framed (the approval cannot be clicked through an invisible frame).
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if err := pageTmpl.Execute(w, d); err != nil {
		s.cfg.Logger.Error("oauth: render a page", "err", err)
	}
}
