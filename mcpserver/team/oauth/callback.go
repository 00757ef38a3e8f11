package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// callback serves GitHub's redirect back: the person signed in there. GitHub's code is exchanged
// for GitHub's token, which reads GET /user once and is dropped: the client gets a code of this
// server's, never GitHub's token.
func (s *Server) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := q.Get("state")
	p, ok := s.pendingOf(r, id)
	if !ok {
		s.page(w, http.StatusBadRequest, "This sign-in cannot go on", "It was started in another browser, or long ago. Start it again.")
		return
	}
	s.forgetPending(w, id)
	if !p.Consented {
		s.page(w, http.StatusBadRequest, "This sign-in cannot go on", "It was not approved. Start it again.")
		return
	}
	if e := q.Get("error"); e != "" || q.Get("code") == "" {
		s.finishRefused(w, r, p, "access_denied", "GitHub did not sign the person in")
		return
	}
	who, err := s.githubUser(r.Context(), q.Get("code"), p.GHVerifier)
	if err != nil {
		s.cfg.Logger.Warn("oauth: sign-in with GitHub failed", "err", err)
		s.finishRefused(w, r, p, "server_error", "the sign-in with GitHub failed")
		return
	}
	if !s.cfg.Allowed(who) {
		s.cfg.Logger.Info("oauth: a GitHub user this deployment does not serve tried to sign in", "user_id", who.ID)
		s.finishRefused(w, r, p, "access_denied", "this GitHub user may not use this deployment")
		return
	}
	if p.Board {
		s.cfg.BoardSignedIn(w, r, who)
		return
	}
	sealed, err := s.sealer.seal(sealCode, codeClaims{
		grantClaims: grantClaims{Family: randomID(), User: who, Client: p.Client, Resource: p.Resource, Scope: p.Scope},
		Redirect:    p.redirectGiven(), Challenge: p.Challenge, Expires: s.cfg.Now().Add(codeTTL).Unix()})
	if err != nil {
		s.finishRefused(w, r, p, "server_error", "could not issue a code")
		return
	}
	v := url.Values{"code": {prefixCode + sealed}, "iss": {s.cfg.Issuer}}
	if p.State != "" {
		v.Set("state", p.State)
	}
	http.Redirect(w, r, withQuery(p.RedirectURI, v), http.StatusFound)
}

// finishRefused ends a sign-in that did not happen: the client hears the error; the board's
// person reads it.
func (s *Server) finishRefused(w http.ResponseWriter, r *http.Request, p *pending, code, description string) {
	if p.Board {
		s.page(w, http.StatusForbidden, "Not signed in", "The sign-in did not happen: "+description+".")
		return
	}
	s.redirectError(w, r, p.RedirectURI, p.State, code, description)
}

// maxUserBody bounds GitHub's /user answer.
const maxUserBody = 1 << 20

// githubUser exchanges GitHub's code (with this server's PKCE verifier) and reads who signed in.
func (s *Server) githubUser(ctx context.Context, code, verifier string) (Identity, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, s.cfg.HTTPClient)
	tok, err := s.github.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return Identity{}, fmt.Errorf("exchange GitHub's code: %w", redactOAuth2(err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.GitHub.APIURL+"/user", nil)
	if err != nil {
		return Identity{}, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	tok.SetAuthHeader(req)
	res, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return Identity{}, fmt.Errorf("GET /user: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return Identity{}, fmt.Errorf("GET /user: HTTP %d", res.StatusCode)
	}
	var u struct {
		ID    int64  `json:"id"`
		Login string `json:"login"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, maxUserBody)).Decode(&u); err != nil {
		return Identity{}, fmt.Errorf("GET /user: %w", err)
	}
	if u.ID <= 0 || !ghclient.ValidLogin(u.Login) {
		return Identity{}, errors.New("GET /user: no user id or no valid login in the answer")
	}
	return Identity{ID: u.ID, Login: u.Login}, nil
}

// redactOAuth2 keeps what an oauth2 error says about the failure, not the body GitHub sent back.
func redactOAuth2(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return fmt.Errorf("GitHub answered %s", re.ErrorCode)
		}
		if re.Response != nil {
			return fmt.Errorf("GitHub answered HTTP %d", re.Response.StatusCode)
		}
	}
	return err
}
