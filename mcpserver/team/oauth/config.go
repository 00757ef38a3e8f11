package oauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/team/authledger"
)

// Identity is the person a token stands for: GitHub's numeric user id (what access is keyed by:
// a login can be renamed and later taken by someone else) and the login GitHub gave at sign-in.
type Identity struct {
	ID    int64  `json:"id"`
	Login string `json:"login"`
}

// GitHub is the GitHub side of the sign-in: an OAuth App, or a GitHub App's user authorization.
type GitHub struct {
	ClientID     string
	ClientSecret string
	// WebURL is where people sign in (https://github.com, or a GitHub Enterprise Server's address).
	WebURL string
	// APIURL is the REST API (https://api.github.com, or WebURL + /api/v3 on GitHub Enterprise
	// Server); only GET /user is read.
	APIURL string
}

// Config configures the sign-in.
type Config struct {
	// Issuer is the deployment's address as people's hosts reach it (https://prmonitor.example.com):
	// the authorization server's issuer, and the base of every URL this package serves.
	Issuer string
	// ResourcePath is the protected resource's path under Issuer (default /mcp): the audience of
	// every access token.
	ResourcePath string
	GitHub       GitHub
	// Allowed says whether a GitHub user may use the deployment; it is asked at sign-in and again
	// at every token check, so a user taken off the list loses access at once.
	Allowed func(Identity) bool
	// Key is the deployment's auth key (at least MinKey bytes), the same on every front-end
	// replica: what the sign-in hands out and takes back is sealed under it (seal.go).
	Key []byte
	// Ledger is where every replica records the codes used, the refresh tokens rotated and the
	// revocations (authledger.Temporal in a deployment).
	Ledger Ledger
	// AccessTTL (default 1 h) and RefreshTTL (default 30 days) bound the tokens handed out.
	AccessTTL, RefreshTTL time.Duration
	// BoardSignedIn, when set, is called when a person signed in to the board: it sets the
	// board's session and answers the browser.
	BoardSignedIn func(w http.ResponseWriter, r *http.Request, who Identity)
	// LoopbackClients lets a Client ID Metadata Document be fetched from a loopback address (and
	// over plain http there). Tests only: a deployment refuses to fetch from loopback or private
	// addresses, so a client id cannot make this server reach its own network.
	LoopbackClients bool
	// HTTPClient reaches GitHub (default: a client with a 15 s timeout).
	HTTPClient *http.Client
	Now        func() time.Time
	Logger     *slog.Logger
}

const (
	defaultAccessTTL  = time.Hour
	defaultRefreshTTL = 30 * 24 * time.Hour
)

func (c *Config) defaults() error {
	iss, err := url.Parse(c.Issuer)
	switch {
	case c.Issuer == "" || err != nil || iss.Host == "":
		return errors.New("oauth: the deployment's address (an absolute URL) is required")
	case iss.Scheme != "https" && !(iss.Scheme == "http" && loopbackHost(iss.Hostname())):
		return fmt.Errorf("oauth: the deployment's address must be https (plain http only on a loopback address): %s", c.Issuer)
	case iss.RawQuery != "" || iss.Fragment != "":
		return errors.New("oauth: the deployment's address takes no query or fragment")
	case c.GitHub.ClientID == "" || c.GitHub.ClientSecret == "":
		return errors.New("oauth: the GitHub client id and secret are required")
	case c.Allowed == nil:
		return errors.New("oauth: no list of who may sign in")
	case len(c.Key) < MinKey:
		return fmt.Errorf("oauth: the auth key (at least %d bytes, the same on every replica) is required", MinKey)
	case c.Ledger == nil:
		return errors.New("oauth: no ledger for the codes, refresh tokens and revocations")
	}
	c.Issuer = strings.TrimSuffix(c.Issuer, "/")
	if c.ResourcePath == "" {
		c.ResourcePath = "/mcp"
	}
	if c.GitHub.WebURL == "" {
		c.GitHub.WebURL = "https://github.com"
	}
	c.GitHub.WebURL = strings.TrimSuffix(c.GitHub.WebURL, "/")
	if c.GitHub.APIURL == "" {
		c.GitHub.APIURL = APIURLFor(c.GitHub.WebURL)
	}
	c.GitHub.APIURL = strings.TrimSuffix(c.GitHub.APIURL, "/")
	if c.AccessTTL <= 0 {
		c.AccessTTL = defaultAccessTTL
	}
	if c.RefreshTTL <= 0 {
		c.RefreshTTL = defaultRefreshTTL
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Ledger is the shared record of what is said once for every replica (package authledger).
type Ledger interface {
	Apply(ctx context.Context, op authledger.Op) (authledger.Outcome, error)
	Revoked(ctx context.Context, key string) (bool, error)
}

// APIURLFor is the REST API of a GitHub web address: api.github.com for github.com, else the
// address's /api/v3 (GitHub Enterprise Server).
func APIURLFor(web string) string {
	web = strings.TrimSuffix(web, "/")
	if u, err := url.Parse(web); err == nil && strings.EqualFold(u.Host, "github.com") {
		return "https://api.github.com"
	}
	return web + "/api/v3"
}

// Resource is the protected resource's identifier (RFC 8707): the audience of the access tokens.
func (s *Server) Resource() string { return s.cfg.Issuer + s.cfg.ResourcePath }

// ResourceMetadataURL is the RFC 9728 metadata's address, as a 401 names it.
func (s *Server) ResourceMetadataURL() string {
	return s.cfg.Issuer + pathResourceMeta + s.cfg.ResourcePath
}

// The paths this package serves.
const (
	pathResourceMeta = "/.well-known/oauth-protected-resource"
	pathServerMeta   = "/.well-known/oauth-authorization-server"
	pathAuthorize    = "/oauth/authorize"
	pathConsent      = "/oauth/consent"
	pathCallback     = "/oauth/callback"
	pathToken        = "/oauth/token"
	pathRegister     = "/oauth/register"
	pathRevoke       = "/oauth/revoke"
	// PathBoardSignIn starts the board's sign-in with GitHub.
	PathBoardSignIn = "/signin/github"
)

// CallbackURL is the address GitHub sends the person back to: the OAuth App's "Authorization
// callback URL" (a GitHub App's "Callback URL").
func (s *Server) CallbackURL() string { return s.cfg.Issuer + pathCallback }

// ResourcePath is the protected resource's path (/mcp).
func (s *Server) ResourcePath() string { return s.cfg.ResourcePath }

// Allowed says whether who may still use the deployment.
func (s *Server) Allowed(who Identity) bool { return s.cfg.Allowed(who) }
