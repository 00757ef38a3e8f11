package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/shurcooL/githubv4"
)

// Config configures a Client. Only Token is required.
type Config struct {
	// RESTURL is the REST API root (--github-url / GITHUB_API_URL); empty means
	// https://api.github.com.
	RESTURL string
	// GraphQLURL is the GraphQL endpoint; empty means derived from RESTURL (GraphQLURLFor).
	GraphQLURL string
	// Token authenticates every request to the two endpoints' hosts, and no other host.
	Token Token
	// Transport is the base round tripper; nil means a clone of http.DefaultTransport.
	Transport http.RoundTripper
	// Version goes into the User-Agent: prmonitor/<Version>. Empty means "dev".
	Version string
	// Retry bounds retries of idempotent requests; zero fields take DefaultRetryPolicy's values.
	Retry RetryPolicy
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Sleep waits between attempts and must return early with an error when ctx is done
	// (default: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
	// Jitter returns a random duration in [0, d) to spread retries (default math/rand/v2).
	Jitter func(d time.Duration) time.Duration
	// Logger receives retry warnings and debug lines; nil discards them. The token is never
	// logged.
	Logger *slog.Logger
	// Gate holds requests back while GitHub asked to wait, and paces writes (pace.go). Share one
	// between every client of a token (and give it a GateStore to survive restarts); nil makes one
	// for this client alone.
	Gate *Gate
	// RESTAPIVersion is the REST API version every REST request names (X-GitHub-Api-Version).
	// Empty means RESTAPIVersionFor the REST URL.
	RESTAPIVersion string
	// WritePace paces the writes (pace.go). Nil means GitHubWritePace, but none for a GitHub on
	// the loopback interface (the simulated GitHub of the demo and the tests).
	WritePace *WritePace
}

// REST API versions prmonitor knows. It reads nothing 2026-03-10 removed (merge_commit_sha,
// /rate_limit's rate, ...: https://docs.github.com/rest/about-the-rest-api/breaking-changes), so
// it works with either.
const (
	RESTAPIVersion20221128 = "2022-11-28"
	RESTAPIVersion20260310 = "2026-03-10"
)

// apiVersionHeader names the REST API version of a request.
const apiVersionHeader = "X-GitHub-Api-Version"

// RESTAPIVersionFor is the REST API version prmonitor pins for a REST root: 2026-03-10 on
// github.com and GitHub Enterprise Cloud with data residency (*.ghe.com); 2022-11-28, which every
// supported GitHub Enterprise Server knows, anywhere else.
func RESTAPIVersionFor(restURL string) string {
	u, err := url.Parse(restURL)
	if err != nil {
		return RESTAPIVersion20221128
	}
	host := strings.ToLower(u.Hostname())
	if host == "api.github.com" || strings.HasSuffix(host, ".ghe.com") {
		return RESTAPIVersion20260310
	}
	return RESTAPIVersion20221128
}

// Client reads pull requests from GitHub. It is safe for concurrent use.
type Client struct {
	endpoints Endpoints
	transport *transport
	http      *http.Client
	gql       queryClient    // GraphQL queries: the transport may send one again
	mut       mutationClient // GraphQL mutations: sent once; the caller decides (write)
	rest      *github.Client // REST, through the same transport (rest.go)
	noFollow  *http.Client   // the transport, following no redirect (log downloads)
	restRoot  *url.URL       // resolves a relative log location
	log       *slog.Logger
	in        ingest
}

// New validates cfg and builds a Client. It fails with ErrNoToken when cfg.Token is empty and
// with ErrBadURL when an endpoint is not a valid URL.
func New(cfg Config) (*Client, error) {
	if cfg.Token.IsZero() {
		return nil, ErrNoToken
	}
	if !validToken(cfg.Token.reveal()) {
		return nil, fmt.Errorf("%w: the token contains characters a token cannot contain", ErrNoToken)
	}
	rest := cfg.RESTURL
	if rest == "" {
		rest = DefaultRESTURL
	}
	rest, err := validURL("REST URL", rest)
	if err != nil {
		return nil, err
	}
	gql := cfg.GraphQLURL
	if gql == "" {
		gql = GraphQLURLFor(rest)
	}
	gql, err = validURL("GraphQL URL", gql)
	if err != nil {
		return nil, err
	}
	ep := Endpoints{REST: rest, GraphQL: gql}

	base := cfg.Transport
	if base == nil {
		base = http.DefaultTransport
		if dt, ok := http.DefaultTransport.(*http.Transport); ok {
			base = dt.Clone()
		}
	}
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	t := &transport{
		base:      base,
		token:     cfg.Token,
		userAgent: "prmonitor/" + version,
		authHosts: map[string]bool{},
		retry:     cfg.Retry.withDefaults(),
		now:       cfg.Now,
		sleep:     cfg.Sleep,
		jitter:    cfg.Jitter,
		log:       logger,
		gate:      cfg.Gate,

		apiVersion: cfg.RESTAPIVersion,
	}
	if t.apiVersion == "" {
		t.apiVersion = RESTAPIVersionFor(ep.REST)
	}
	t.pace = writePaceFor(ep.REST)
	if cfg.WritePace != nil {
		t.pace = *cfg.WritePace
	}
	if t.now == nil {
		t.now = time.Now
	}
	if t.gate == nil {
		t.gate = NewGate(nil, t.now, logger)
	}
	if t.sleep == nil {
		t.sleep = sleepContext
	}
	if t.jitter == nil {
		t.jitter = defaultJitter
	}
	for _, raw := range []string{ep.REST, ep.GraphQL} {
		u, _ := url.Parse(raw) // validated above
		t.authHosts[u.Scheme+"://"+strings.ToLower(u.Host)] = true
		if raw == ep.GraphQL {
			t.graphQL = u
		}
	}
	hc := &http.Client{Transport: t}
	restAPI, noFollow, err := newREST(hc, ep.REST, t.userAgent)
	if err != nil {
		return nil, err
	}
	restRoot, _ := url.Parse(ep.REST + "/") // validated above
	gqlAPI := githubv4.NewEnterpriseClient(ep.GraphQL, hc)
	return &Client{
		endpoints: ep,
		transport: t,
		http:      hc,
		gql:       queryClient{gqlAPI},
		mut:       mutationClient{gqlAPI},
		rest:      restAPI,
		noFollow:  noFollow,
		restRoot:  restRoot,
		log:       logger,
		in:        ingest{redact: cfg.Token.redactor()},
	}, nil
}

// queryClient sends GraphQL queries. A query changes nothing, so it says so to the transport
// (withMark), which may then send it again after a failure. The decision is made here, where the
// request is sent, never by reading the document.
type queryClient struct{ c *githubv4.Client }

// Query sends a GraphQL query; see githubv4.Client.Query.
func (q queryClient) Query(ctx context.Context, v any, vars map[string]any) error {
	return q.c.Query(withMark(ctx, markQuery), v, vars)
}

// mutationClient sends GraphQL mutations, once each: only the caller knows whether doing one
// again is harmless (Client.write).
type mutationClient struct{ c *githubv4.Client }

// Mutate sends a GraphQL mutation once; see githubv4.Client.Mutate.
func (m mutationClient) Mutate(ctx context.Context, v any, input githubv4.Input, vars map[string]any) error {
	return m.c.Mutate(ctx, v, input, vars)
}

// HTTPClient returns the client's *http.Client: authenticated, rate-limit aware, retrying
// idempotent requests, with typed errors. REST goes through go-github built on it (REST).
func (c *Client) HTTPClient() *http.Client { return c.http }

// Endpoints returns the REST root and GraphQL endpoint the client calls.
func (c *Client) Endpoints() Endpoints { return c.endpoints }

// Gate returns the gate every request of the client passes.
func (c *Client) Gate() *Gate { return c.transport.gate }

// TokenID is the client's token's ShortID, for a metric's label.
func (c *Client) TokenID() string { return c.transport.token.ShortID() }

// LastRateLimit returns the rate-limit headers of the newest response, and false before the first
// response that carried them.
func (c *Client) LastRateLimit() (RateLimitInfo, bool) { return c.transport.lastRateLimit() }

// callError makes an error from githubv4 or net/http fit to return: the typed error the transport
// produced is unwrapped from net/http's *url.Error (whose "Post URL:" prefix adds nothing), and the
// message is one line without the token.
func (c *Client) callError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	return scrubError(c.transport.token, err)
}
