package ghclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// maxGraphQLBody bounds a buffered GraphQL response. A full snapshot is well under 10 MiB.
const maxGraphQLBody = 64 << 20

// maxErrorBody bounds how much of an error response is read for GitHub's message.
const maxErrorBody = 64 << 10

// transport is the http.RoundTripper every GitHub call goes through (see the package doc).
// It is safe for concurrent use.
type transport struct {
	base      http.RoundTripper
	token     Token
	userAgent string
	graphQL   *url.URL
	authHosts map[string]bool // scheme://host that receive the token
	retry     RetryPolicy
	now       func() time.Time
	sleep     func(context.Context, time.Duration) error
	jitter    func(time.Duration) time.Duration
	log       *slog.Logger
	gate      *Gate

	mu   sync.Mutex
	last RateLimitInfo
	seen bool
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	gql := req.Method == http.MethodPost && sameEndpoint(req.URL, t.graphQL)

	// Buffer the body of requests that may be retried (and of every GraphQL request, to see
	// whether it is a query). Other bodies stream through untouched, for one attempt.
	var body []byte
	buffered := false
	if req.Body != nil && req.Body != http.NoBody && (gql || req.Method == http.MethodGet || req.Method == http.MethodHead) {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", scrubError(t.token, err))
		}
		body, buffered = b, true
	}
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead
	if gql {
		idempotent = isGraphQLQuery(body)
	}

	resource := t.resource(req, gql)
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		if err := t.passGate(ctx, resource); err != nil {
			return nil, err
		}
		resp, err := t.attempt(ctx, req, body, buffered, gql)
		if err == nil {
			t.holdExhausted(resp.Header, resource)
			return resp, nil
		}
		t.hold(err, resource)
		if !idempotent || ctx.Err() != nil {
			return nil, err
		}
		wait, again := t.retry.retryDecision(err, attempt, t.jitter)
		if !again || !fits(ctx, wait) {
			return nil, err
		}
		t.log.LogAttrs(ctx, slog.LevelWarn, "github request failed; retrying",
			slog.String("method", req.Method), slog.String("url", redactURL(req.URL)),
			slog.Int("attempt", attempt), slog.Duration("wait", wait), slog.String("error", err.Error()))
		if errors.Is(err, ErrRateLimited) {
			continue // the gate holds the next attempt back for as long as GitHub asked
		}
		if serr := t.sleep(ctx, wait); serr != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			return nil, fmt.Errorf("wait before retrying: %w", scrubError(t.token, serr))
		}
	}
}

// attempt sends req once and classifies the outcome.
func (t *transport) attempt(ctx context.Context, req *http.Request, body []byte, buffered, gql bool) (*http.Response, error) {
	actx, cancel := ctx, context.CancelFunc(func() {})
	if t.retry.AttemptTimeout > 0 {
		actx, cancel = context.WithTimeout(ctx, t.retry.AttemptTimeout)
	}
	r := req.Clone(actx)
	if buffered {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	r.Header.Set("User-Agent", t.userAgent)
	if !isTokenless(ctx) && t.authHosts[r.URL.Scheme+"://"+strings.ToLower(r.URL.Host)] {
		r.Header.Set("Authorization", "Bearer "+t.token.reveal())
	}

	resp, err := t.base.RoundTrip(r)
	if err != nil {
		cancel()
		return nil, t.transportError(ctx, actx, err)
	}
	now := t.now()
	if info, ok := rateLimitFromHeaders(resp.Header, now); ok {
		t.mu.Lock()
		t.last, t.seen = info, true
		t.mu.Unlock()
	}

	switch code := resp.StatusCode; {
	case gql && code == http.StatusOK:
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLBody+1))
		_ = resp.Body.Close()
		cancel()
		if err != nil {
			return nil, t.transportError(ctx, actx, err)
		}
		if len(data) > maxGraphQLBody {
			return nil, fmt.Errorf("GraphQL response larger than %d MiB", maxGraphQLBody>>20)
		}
		if cerr := classifyGraphQL(resp.Header, data, now, t.token); cerr != nil {
			return nil, cerr
		}
		// Put the body back for githubv4's decoder.
		resp.Body = io.NopCloser(bytes.NewReader(data))
		resp.ContentLength = int64(len(data))
		return resp, nil
	case code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound ||
		code == http.StatusTooManyRequests || code >= 500:
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		_ = resp.Body.Close()
		cancel()
		return nil, classifyStatus(resp, data, now, t.token)
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

// transportError classifies a failure to get a response. The caller's own cancellation is passed
// through as is; a per-attempt timeout and network failures become ErrUnavailable.
func (t *transport) transportError(ctx, actx context.Context, err error) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		return newAPIError(ErrUnavailable, t.token,
			fmt.Sprintf("no response within %s", t.retry.AttemptTimeout), err)
	}
	return newAPIError(ErrUnavailable, t.token, err.Error(), err)
}

// lastRateLimit returns the newest rate-limit headers seen.
func (t *transport) lastRateLimit() (RateLimitInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.seen
}

// tokenlessKey marks a request context whose requests must not carry the token.
type tokenlessKey struct{}

// withoutToken returns a context whose requests never carry the token, whatever their host: a
// pre-signed download URL needs none, and may well be served from a GitHub host (GHES).
func withoutToken(ctx context.Context) context.Context {
	return context.WithValue(ctx, tokenlessKey{}, true)
}

func isTokenless(ctx context.Context) bool {
	v, _ := ctx.Value(tokenlessKey{}).(bool)
	return v
}

// cancelOnClose releases a per-attempt context when the caller is done with a streamed body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// sameEndpoint reports whether u addresses endpoint (scheme, host and path; query ignored).
func sameEndpoint(u, endpoint *url.URL) bool {
	return u.Scheme == endpoint.Scheme && strings.EqualFold(u.Host, endpoint.Host) &&
		strings.TrimRight(u.Path, "/") == strings.TrimRight(endpoint.Path, "/")
}

// redactURL renders u for a log line: without user info or query string.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

// isGraphQLQuery reports whether a GraphQL request body holds a query and no mutation or
// subscription: only those are safe to send twice. Anything unparseable counts as a mutation.
func isGraphQLQuery(body []byte) bool {
	var in struct {
		Query string `json:"query"`
	}
	if len(body) == 0 || json.Unmarshal(body, &in) != nil {
		return false
	}
	return documentIsQuery(in.Query)
}

// documentIsQuery reports whether every operation in a GraphQL document is a query: each
// top-level definition starts with "{" or the keyword "query" (fragments are allowed too).
func documentIsQuery(doc string) bool {
	depth, ops := 0, 0
	for i := 0; i < len(doc); {
		c := doc[i]
		switch {
		case c == '#':
			for i < len(doc) && doc[i] != '\n' && doc[i] != '\r' {
				i++
			}
			continue
		case c == '"':
			i = skipString(doc, i)
			continue
		case c == '{':
			if depth == 0 {
				ops++ // "{" at top level: an anonymous query, or the body of a named definition
			}
			depth++
		case c == '}':
			depth--
		case depth == 0 && isNameStart(c):
			j := i
			for j < len(doc) && isNameChar(doc[j]) {
				j++
			}
			switch doc[i:j] {
			case "query", "fragment":
			default: // mutation, subscription, or not GraphQL at all
				return false
			}
			// Skip the rest of the definition header (name, variables, directives) up to "{".
			for j < len(doc) && doc[j] != '{' {
				if doc[j] == '"' {
					j = skipString(doc, j)
					continue
				}
				j++
			}
			i = j
			continue
		}
		i++
	}
	return ops > 0 && depth == 0
}

// skipString returns the index just after the string literal (plain or block) starting at i.
func skipString(doc string, i int) int {
	if strings.HasPrefix(doc[i:], `"""`) {
		if end := strings.Index(doc[i+3:], `"""`); end >= 0 {
			return i + 3 + end + 3
		}
		return len(doc)
	}
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"', '\n':
			return j + 1
		}
	}
	return len(doc)
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isNameChar(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }
