package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
)

// The tokens' prefixes say what a leaked string is (secret scanners match on them); the rest is
// a sealed value (seal.go).
const (
	prefixAccess  = "pma_"
	prefixRefresh = "pmr_"
	prefixCode    = "pmc_"
	prefixClient  = "pmclient_"
)

// randomID is 16 random bytes, base64url: a sign-in's family id, a request's id.
func randomID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it panics on a broken source)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashOf is the hex SHA-256 of s, shortened: what the ledger and sealed values name a code or a
// client by.
func hashOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
}

// Errors a token check returns; the resource server answers each with a 401.
var (
	ErrUnknownToken = errors.New("the token is not one this server issued")
	ErrExpired      = errors.New("the token has expired")
	ErrRevoked      = errors.New("the token was revoked")
	ErrAudience     = errors.New("the token was issued for another resource")
	ErrNotAllowed   = errors.New("the user may no longer use this deployment")
)

// grantClaims are what every token of one sign-in (a family: one person in one client, and every
// token its refreshes produced) carries.
type grantClaims struct {
	Family   string   `json:"f"`
	User     Identity `json:"u"`
	Client   string   `json:"c"` // hashOf the client id
	Resource string   `json:"r"`
	Scope    string   `json:"s"`
}

// accessClaims are a sealed access token's content.
type accessClaims struct {
	grantClaims
	Expires int64 `json:"e"`
}

// refreshClaims are a sealed refresh token's content: Gen counts the rotations, and only the
// family's current generation is taken (the ledger's).
type refreshClaims struct {
	grantClaims
	Gen     int   `json:"g"`
	Expires int64 `json:"e"`
}

// familyKey is the ledger's key of a sign-in.
func familyKey(id string) string { return "family:" + id }

// Verify checks an access token presented to the resource: sealed here, for this resource, not
// expired, its sign-in not revoked (the ledger, shared by every replica), and its user still
// allowed. It returns whom it stands for.
func (s *Server) Verify(ctx context.Context, token string) (Identity, error) {
	var c accessClaims
	sealed, ok := strings.CutPrefix(token, prefixAccess)
	if !ok || s.sealer.open(sealAccess, sealed, &c) != nil {
		return Identity{}, ErrUnknownToken
	}
	switch {
	case !s.cfg.Now().Before(time.Unix(c.Expires, 0)):
		return Identity{}, ErrExpired
	case c.Resource != s.Resource():
		return Identity{}, ErrAudience
	}
	revoked, err := s.cfg.Ledger.Revoked(ctx, familyKey(c.Family))
	switch {
	case err != nil:
		s.cfg.Logger.Error("oauth: the ledger did not answer; the token is refused", "err", err)
		return Identity{}, fmt.Errorf("the token could not be checked now: %w", errLedger)
	case revoked:
		return Identity{}, ErrRevoked
	case !s.cfg.Allowed(c.User):
		return Identity{}, ErrNotAllowed
	}
	return c.User, nil
}

// errLedger: the ledger could not be reached.
var errLedger = errors.New("the sign-in ledger is unavailable")

// issued is what the token endpoint answers.
type issued struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope,omitempty"`
}

// issue seals a new access token and refresh token (generation gen) of g.
func (s *Server) issue(g grantClaims, gen int, now time.Time) (issued, error) {
	access, err := s.sealer.seal(sealAccess, accessClaims{grantClaims: g, Expires: now.Add(s.cfg.AccessTTL).Unix()})
	if err != nil {
		return issued{}, err
	}
	refresh, err := s.sealer.seal(sealRefresh, refreshClaims{grantClaims: g, Gen: gen, Expires: now.Add(s.cfg.RefreshTTL).Unix()})
	if err != nil {
		return issued{}, err
	}
	return issued{AccessToken: prefixAccess + access, TokenType: "Bearer", ExpiresIn: int64(s.cfg.AccessTTL / time.Second),
		RefreshToken: prefixRefresh + refresh, Scope: g.Scope}, nil
}

// errInvalidGrant is the token endpoint's invalid_grant, with its description.
type errInvalidGrant string

func (e errInvalidGrant) Error() string { return string(e) }

// refresh exchanges a refresh token of client for new tokens. The ledger takes each generation
// once, whichever replica asks: a refresh token already exchanged means it leaked (or the client
// lost the new one), and the family is revoked, every token of it.
func (s *Server) refresh(ctx context.Context, token, client, resource string) (issued, error) {
	now := s.cfg.Now()
	var c refreshClaims
	sealed, ok := strings.CutPrefix(token, prefixRefresh)
	switch {
	case !ok || s.sealer.open(sealRefresh, sealed, &c) != nil || !now.Before(time.Unix(c.Expires, 0)):
		return issued{}, errInvalidGrant("the refresh token is unknown or expired")
	case c.Client != hashOf(client):
		return issued{}, errInvalidGrant("the refresh token was issued to another client")
	case resource != "" && resource != c.Resource:
		return issued{}, errInvalidTarget("the refresh token was issued for " + c.Resource)
	case c.Resource != s.Resource():
		return issued{}, errInvalidGrant("the refresh token was issued for another resource")
	case !s.cfg.Allowed(c.User):
		return issued{}, errInvalidGrant("the user may no longer use this deployment")
	}
	out, err := s.cfg.Ledger.Apply(ctx, authledger.Op{Kind: authledger.KindRotate, Key: familyKey(c.Family), Gen: c.Gen,
		Until: now.Add(s.cfg.RefreshTTL)})
	switch {
	case err != nil:
		return issued{}, fmt.Errorf("rotate the refresh token: %w", err)
	case out.Reused:
		s.cfg.Logger.Warn("oauth: a refresh token was used twice; every token of its sign-in is revoked",
			"user_id", c.User.ID, "client", c.Client)
		return issued{}, errInvalidGrant("the refresh token was already used: every token of this sign-in is revoked")
	case !out.Rotated:
		return issued{}, errInvalidGrant("the refresh token was revoked")
	}
	return s.issue(c.grantClaims, c.Gen+1, now)
}

// Revoke ends the sign-in of token (an access or a refresh token): every token of it, on every
// replica. A token that is not one of ours is no error (RFC 7009).
func (s *Server) Revoke(ctx context.Context, token string) error {
	var family string
	if sealed, ok := strings.CutPrefix(token, prefixAccess); ok {
		var c accessClaims
		if s.sealer.open(sealAccess, sealed, &c) == nil {
			family = c.Family
		}
	} else if sealed, ok := strings.CutPrefix(token, prefixRefresh); ok {
		var c refreshClaims
		if s.sealer.open(sealRefresh, sealed, &c) == nil {
			family = c.Family
		}
	}
	if family == "" {
		return nil
	}
	return s.revokeFamily(ctx, family)
}

// revokeFamily ends a family by id, for as long as any token of it could live.
func (s *Server) revokeFamily(ctx context.Context, id string) error {
	_, err := s.cfg.Ledger.Apply(ctx, authledger.Op{Kind: authledger.KindRevoke, Key: familyKey(id), Until: s.cfg.Now().Add(s.cfg.RefreshTTL)})
	return err
}
