package oauth

import (
	"net/http"
	"time"
)

// pending is a sign-in under way: from the client's authorization request (or the board's
// sign-in link) to GitHub's answer. It lives sealed in the browser's cookie for it (one cookie
// per sign-in), not in any process: whichever replica the browser's next request reaches opens
// it. GitHub's code is taken once by GitHub itself, so a sign-in replayed from an old cookie gets
// nothing.
type pending struct {
	ID    string `json:"id"` // GitHub's state, and the cookie's name
	Board bool   `json:"board,omitempty"`
	// An MCP client's request; Client is hashOf its client id (the id itself may be long).
	Client      string `json:"client,omitempty"`
	RedirectURI string `json:"redirect,omitempty"`
	// RedirectGiven: the request named RedirectURI (it may name none when the client registered
	// one); the code's exchange must send the same.
	RedirectGiven bool   `json:"redirect_given,omitempty"`
	State         string `json:"state,omitempty"`
	Challenge     string `json:"challenge,omitempty"`
	Resource      string `json:"resource,omitempty"`
	Scope         string `json:"scope,omitempty"`
	Consented     bool   `json:"consented,omitempty"`
	// GHVerifier is the PKCE verifier of the request to GitHub.
	GHVerifier string    `json:"gh_verifier"`
	Created    time.Time `json:"created"`
}

const (
	pendingTTL = 10 * time.Minute
	codeTTL    = time.Minute
	// maxState bounds the client's state parameter (it rides in the cookie and back), as
	// maxRedirectURI bounds a redirect URI: the sealed sign-in stays well within a cookie's 4 KiB.
	maxState = 512
)

// keepPending puts p, sealed, in the browser's cookie for it.
func (s *Server) keepPending(w http.ResponseWriter, p *pending) error {
	sealed, err := s.sealer.seal(sealSignIn, p)
	if err != nil {
		return err
	}
	s.setSignInCookie(w, p.ID, sealed, int(pendingTTL.Seconds()))
	return nil
}

// pendingOf is sign-in id as the browser's cookie holds it, while it lasts: a request without the
// cookie (another browser) or with one this deployment did not seal finds none.
func (s *Server) pendingOf(r *http.Request, id string) (*pending, bool) {
	if id == "" {
		return nil, false
	}
	c, err := r.Cookie(s.signInCookie(id))
	if err != nil {
		return nil, false
	}
	var p pending
	if s.sealer.open(sealSignIn, c.Value, &p) != nil || p.ID != id || s.cfg.Now().Sub(p.Created) > pendingTTL {
		return nil, false
	}
	return &p, true
}

// forgetPending tells the browser to drop sign-in id's cookie.
func (s *Server) forgetPending(w http.ResponseWriter, id string) {
	s.setSignInCookie(w, id, "", -1)
}

// redirectGiven is the request's redirect_uri as sent ("" when it named none).
func (p *pending) redirectGiven() string {
	if p.RedirectGiven {
		return p.RedirectURI
	}
	return ""
}
