package oauth

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// The tokens' prefixes say what a leaked string is (secret scanners match on them); the rest is
// 32 random bytes.
const (
	prefixAccess  = "pma_"
	prefixRefresh = "pmr_"
	prefixCode    = "pmc_"
	prefixClient  = "pmclient_"
)

// randomToken is prefix and 32 random bytes, base64url.
func randomToken(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics on a broken source)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Errors a token check returns; the resource server answers each with a 401.
var (
	ErrUnknownToken = errors.New("the token is not one this server issued")
	ErrExpired      = errors.New("the token has expired")
	ErrRevoked      = errors.New("the token was revoked")
	ErrAudience     = errors.New("the token was issued for another resource")
	ErrNotAllowed   = errors.New("the user may no longer use this deployment")
)

// Verify checks an access token presented to the resource: issued here, for this resource, not
// expired, not revoked, and its user still allowed. It returns whom it stands for.
func (s *Server) Verify(token string) (Identity, error) {
	if !strings.HasPrefix(token, prefixAccess) {
		return Identity{}, ErrUnknownToken
	}
	now := s.cfg.Now()
	var (
		who Identity
		err error
	)
	s.store.view(func(d *storeData) {
		t, ok := d.Tokens[hashToken(token)]
		if !ok || t.Kind != kindAccess {
			err = ErrUnknownToken
			return
		}
		f, ok := d.Families[t.Family]
		switch {
		case !ok:
			err = ErrUnknownToken
		case f.Revoked:
			err = ErrRevoked
		case !now.Before(t.Expires):
			err = ErrExpired
		case f.Resource != s.Resource():
			err = ErrAudience
		default:
			who = f.User
		}
	})
	if err != nil {
		return Identity{}, err
	}
	if !s.cfg.Allowed(who) {
		return Identity{}, ErrNotAllowed
	}
	return who, nil
}

// issued is what the token endpoint answers.
type issued struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
}

// issueLocked adds a new access and refresh token to family id.
func (s *Server) issueLocked(d *storeData, id string, now time.Time) issued {
	access, refresh := randomToken(prefixAccess), randomToken(prefixRefresh)
	d.Tokens[hashToken(access)] = &tokenRec{Family: id, Kind: kindAccess, Expires: now.Add(s.cfg.AccessTTL)}
	d.Tokens[hashToken(refresh)] = &tokenRec{Family: id, Kind: kindRefresh, Expires: now.Add(s.cfg.RefreshTTL)}
	return issued{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(s.cfg.AccessTTL / time.Second),
		RefreshToken: refresh, Scope: d.Families[id].Scope}
}

// grant starts a family for a code just exchanged and issues its first tokens.
func (s *Server) grant(c *authCode) (issued, error) {
	now := s.cfg.Now()
	var out issued
	err := s.store.update(now, func(d *storeData) (bool, error) {
		d.Families[c.family] = &family{User: c.user, Client: c.client, Resource: c.resource, Scope: c.scope, Created: now}
		out = s.issueLocked(d, c.family, now)
		return true, nil
	})
	return out, err
}

// errInvalidGrant is the token endpoint's invalid_grant, with its description.
type errInvalidGrant string

func (e errInvalidGrant) Error() string { return string(e) }

// refresh exchanges a refresh token of client for new tokens. A refresh token already exchanged
// means it leaked (or the client lost the new one): the family is revoked, every token of it.
func (s *Server) refresh(token, client, resource string) (issued, error) {
	now := s.cfg.Now()
	var out issued
	err := s.store.update(now, func(d *storeData) (bool, error) {
		t, ok := d.Tokens[hashToken(token)]
		if !ok || t.Kind != kindRefresh || !now.Before(t.Expires) {
			return false, errInvalidGrant("the refresh token is unknown or expired")
		}
		f := d.Families[t.Family]
		switch {
		case f == nil || f.Revoked:
			return false, errInvalidGrant("the refresh token was revoked")
		case f.Client != client:
			return false, errInvalidGrant("the refresh token was issued to another client")
		case resource != "" && resource != f.Resource:
			return false, errInvalidTarget("the refresh token was issued for " + f.Resource)
		case f.Resource != s.Resource():
			return false, errInvalidGrant("the refresh token was issued for another resource")
		case t.Used:
			f.Revoked = true
			s.cfg.Logger.Warn("oauth: a refresh token was used twice; every token of its sign-in is revoked",
				"user_id", f.User.ID, "client", f.Client)
			return true, errInvalidGrant("the refresh token was already used: every token of this sign-in is revoked")
		case !s.cfg.Allowed(f.User):
			return false, errInvalidGrant("the user may no longer use this deployment")
		}
		t.Used = true
		out = s.issueLocked(d, t.Family, now)
		return true, nil
	})
	return out, err
}

// Revoke ends the family of token (an access or a refresh token): every token of that sign-in.
// An unknown token is no error (RFC 7009).
func (s *Server) Revoke(token string) error {
	return s.store.update(s.cfg.Now(), func(d *storeData) (bool, error) {
		t, ok := d.Tokens[hashToken(token)]
		if !ok {
			return false, nil
		}
		if f := d.Families[t.Family]; f != nil && !f.Revoked {
			f.Revoked = true
			return true, nil
		}
		return false, nil
	})
}

// revokeFamily ends a family by id (a code shown twice).
func (s *Server) revokeFamily(id string) {
	err := s.store.update(s.cfg.Now(), func(d *storeData) (bool, error) {
		if f := d.Families[id]; f != nil && !f.Revoked {
			f.Revoked = true
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		s.cfg.Logger.Error("oauth: revoke the tokens of a code used twice", "err", err)
	}
}
