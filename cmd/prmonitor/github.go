package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// githubFlags are the flags of every command that talks to GitHub.
type githubFlags struct {
	url     string
	verbose bool
}

func (g *githubFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&g.url, "github-url", "", "the GitHub REST API root `URL` (default $GITHUB_API_URL, else https://api.github.com); GraphQL is called beside it")
	fs.BoolVar(&g.verbose, "verbose", false, "log to stderr where the token came from (never the token), each GitHub request with its status and the rate limit left, and retries")
}

// oneShotRetry is how patient a one-shot command is: a few quick retries of a network failure or
// an outage, and a short rate-limit wait. Anything longer is reported for the user to decide.
func oneShotRetry() ghclient.RetryPolicy {
	return ghclient.RetryPolicy{
		MaxAttempts:      3,
		BaseDelay:        500 * time.Millisecond,
		MaxDelay:         4 * time.Second,
		MaxRateLimitWait: 10 * time.Second,
		AttemptTimeout:   20 * time.Second,
	}
}

// client resolves the endpoints and the token and builds a GitHub client. Every secret it finds is
// remembered in sec, so that nothing the command prints can carry it.
func (g *githubFlags) client(ctx context.Context, e env, sec *secrets) (*ghclient.Client, error) {
	return g.clientWith(ctx, e, sec, oneShotRetry(), nil, nil)
}

// clientWith is client with a retry policy, when logger is non-nil that logger, and when gate is
// non-nil that rate-limit gate (shared, persisted) instead of one of its own.
func (g *githubFlags) clientWith(ctx context.Context, e env, sec *secrets, retry ghclient.RetryPolicy, logger *slog.Logger, gate *ghclient.Gate) (*ghclient.Client, error) {
	for _, name := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		sec.add(e.Getenv(name))
	}
	ep, err := ghclient.ResolveEndpoints(e.Getenv, g.url)
	if err != nil {
		return nil, err
	}
	var runner ghclient.CommandRunner
	askedGH := false
	if e.RunCommand != nil {
		runner = func(ctx context.Context, name string, args ...string) ([]byte, error) {
			askedGH = true
			out, err := e.RunCommand(ctx, name, args...)
			for line := range strings.Lines(string(out)) {
				sec.add(line)
			}
			return out, err
		}
	}
	token, err := ghclient.ResolveToken(ctx, e.Getenv, ep.Host(), runner)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
		if g.verbose {
			logger = slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
	}
	transport := e.Transport
	if logger.Enabled(ctx, slog.LevelDebug) {
		if transport == nil {
			transport = http.DefaultTransport.(*http.Transport).Clone()
		}
		logger.Debug("GitHub", "rest", ep.REST, "graphql", ep.GraphQL, "token_from", tokenSource(e.Getenv, askedGH, ep.Host()))
		transport = loggingTransport{next: transport, log: logger, now: e.Now}
	}
	c, err := ghclient.New(ghclient.Config{
		RESTURL:    ep.REST,
		GraphQLURL: ep.GraphQL,
		Token:      token,
		Transport:  transport,
		Version:    version,
		Retry:      retry,
		Now:        e.Now,
		Sleep:      e.Sleep,
		Logger:     logger,
		Gate:       gate,
	})
	if err != nil {
		return nil, fmt.Errorf("set up the GitHub client: %w", err)
	}
	return c, nil
}

// refuseOtherHost refuses a pull request URL on another host than the configured GitHub's before
// any request is sent, when the API root says which host that is (ghclient.Endpoints.WebHost);
// otherwise GitHub's answer decides, after the first read (prstatus.CheckHost).
func (g *githubFlags) refuseOtherHost(e env, ref string) error {
	ep, err := ghclient.ResolveEndpoints(e.Getenv, g.url)
	if err != nil {
		return nil // the client reports it
	}
	if host, ok := ep.WebHost(); ok {
		return prstatus.CheckHost(ref, "https://"+host+"/")
	}
	return nil
}

// tokenSource says where the token came from (never the token): the first of GITHUB_TOKEN and
// GH_TOKEN that is set, else gh.
func tokenSource(getenv func(string) string, askedGH bool, host string) string {
	for _, name := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		if strings.TrimSpace(getenv(name)) != "" {
			return name
		}
	}
	if host == "" {
		host = "github.com"
	}
	if askedGH {
		return "gh auth token --hostname " + host
	}
	return "nowhere"
}

// loggingTransport logs every HTTP exchange with GitHub, for --verbose: the method, the URL without
// its query (a signed log link carries a secret there), the status, the time taken, and what
// GitHub's headers say of the rate limit left, the permissions an endpoint accepts and single
// sign-on. It logs no other header and no body.
type loggingTransport struct {
	next http.RoundTripper
	log  *slog.Logger
	now  func() time.Time
}

func (t loggingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := t.now()
	resp, err := t.next.RoundTrip(r)
	u := *r.URL
	u.User, u.RawQuery, u.ForceQuery, u.Fragment = nil, "", false, ""
	attrs := []any{"method", r.Method, "url", u.String(), "took", t.now().Sub(start).Round(time.Millisecond)}
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its URL may carry a query
		}
		t.log.DebugContext(r.Context(), "GitHub request failed", append(attrs, "err", err.Error())...)
		return resp, err
	}
	attrs = append(attrs, "status", resp.StatusCode)
	for _, h := range []struct{ name, header string }{
		{"rate_remaining", "X-RateLimit-Remaining"},
		{"accepted_permissions", "X-Accepted-GitHub-Permissions"}, // what a 403 would have needed
		{"sso", "X-GitHub-SSO"},                                   // an organization's single sign-on asks for the token to be authorized
	} {
		if v := resp.Header.Get(h.header); v != "" {
			attrs = append(attrs, h.name, v)
		}
	}
	t.log.DebugContext(r.Context(), "GitHub request", attrs...)
	return resp, nil
}

// secrets are the token candidates a command has seen. scrub removes them from text it is about
// to print: ghclient already keeps the token out of its errors, this is the second lock.
type secrets struct {
	mu     sync.Mutex
	values []string
}

// minSecret keeps scrub from mangling output over a value too short to be a token.
const minSecret = 8

func (s *secrets) add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minSecret {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = append(s.values, v)
}

func (s *secrets) scrub(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.values {
		text = strings.ReplaceAll(text, v, "[REDACTED]")
	}
	return text
}
