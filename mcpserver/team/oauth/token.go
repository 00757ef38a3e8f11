package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
)

// errInvalidTarget is the token endpoint's invalid_target (RFC 8707), with its description.
type errInvalidTarget string

func (e errInvalidTarget) Error() string { return string(e) }

// token serves the token endpoint: a code exchanged with its PKCE verifier, or a refresh token
// rotated.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(w, r); err != nil {
		writeJSONError(w, http.StatusBadRequest, "invalid_request", "the body must be a form of at most 64 KiB")
		return
	}
	f := r.PostForm
	var (
		out issued
		err error
	)
	switch f.Get("grant_type") {
	case "authorization_code":
		out, err = s.exchange(r.Context(), f.Get("code"), f.Get("client_id"), f.Get("redirect_uri"), f.Get("code_verifier"), f.Get("resource"))
	case "refresh_token":
		if f.Get("refresh_token") == "" || f.Get("client_id") == "" {
			err = errInvalidRequest("refresh_token and client_id are required")
			break
		}
		out, err = s.refresh(r.Context(), f.Get("refresh_token"), f.Get("client_id"), f.Get("resource"))
	default:
		writeJSONError(w, http.StatusBadRequest, "unsupported_grant_type", "authorization_code and refresh_token are served")
		return
	}
	var (
		grant  errInvalidGrant
		target errInvalidTarget
		req    errInvalidRequest
	)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, out)
	case errors.As(err, &req):
		writeJSONError(w, http.StatusBadRequest, "invalid_request", err.Error())
	case errors.As(err, &target):
		writeJSONError(w, http.StatusBadRequest, "invalid_target", err.Error())
	case errors.As(err, &grant):
		writeJSONError(w, http.StatusBadRequest, "invalid_grant", grant.Error())
	default:
		s.cfg.Logger.Error("oauth: token endpoint", "err", err)
		writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "could not issue tokens now")
	}
}

// errInvalidRequest is the token endpoint's invalid_request, with its description.
type errInvalidRequest string

func (e errInvalidRequest) Error() string { return string(e) }

// codeClaims are a sealed authorization code's content.
type codeClaims struct {
	grantClaims
	// Redirect is the authorization request's redirect_uri as sent ("" when it named none).
	Redirect  string `json:"ru"`
	Challenge string `json:"ch"`
	Expires   int64  `json:"e"`
}

// exchange trades a code for the first tokens of a new family. The ledger takes each code once,
// whichever replica it is shown to: a code shown a second time revokes what the first exchange
// issued (OAuth 2.1 §4.1.3).
func (s *Server) exchange(ctx context.Context, code, client, redirect, verifier, resource string) (issued, error) {
	switch {
	case code == "" || client == "":
		return issued{}, errInvalidRequest("code and client_id are required")
	case verifier == "":
		return issued{}, errInvalidRequest("code_verifier is required (PKCE)")
	case len(verifier) < 43 || len(verifier) > 128:
		return issued{}, errInvalidRequest("code_verifier must be 43 to 128 characters")
	}
	var c codeClaims
	sealed, ok := strings.CutPrefix(code, prefixCode)
	if !ok || s.sealer.open(sealCode, sealed, &c) != nil {
		return issued{}, errInvalidGrant("the code is unknown")
	}
	now := s.cfg.Now()
	expires := time.Unix(c.Expires, 0)
	if !now.Before(expires) {
		return issued{}, errInvalidGrant("the code has expired")
	}
	out, err := s.cfg.Ledger.Apply(ctx, authledger.Op{Kind: authledger.KindUse, Key: "code:" + hashOf(code), Until: expires})
	switch {
	case err != nil:
		return issued{}, fmt.Errorf("take the code: %w", err)
	case out.UsedBefore:
		if err := s.revokeFamily(ctx, c.Family); err != nil {
			s.cfg.Logger.Error("oauth: revoke the tokens of a code used twice", "err", err)
		}
		return issued{}, errInvalidGrant("the code was already used: the tokens it gave are revoked")
	case c.Client != hashOf(client):
		return issued{}, errInvalidGrant("the code was issued to another client")
	case c.Redirect != redirect:
		return issued{}, errInvalidGrant("redirect_uri is not the one of the authorization request")
	case !pkceOK(verifier, c.Challenge):
		return issued{}, errInvalidGrant("code_verifier does not match the code_challenge")
	case resource != "" && resource != c.Resource:
		return issued{}, errInvalidTarget("the code was issued for " + c.Resource)
	}
	return s.issue(c.grantClaims, 0, now)
}

// pkceOK: BASE64URL(SHA256(verifier)) is the challenge (S256, the only method served).
func pkceOK(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	got := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(got), []byte(challenge)) == 1
}
