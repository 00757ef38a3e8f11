package ghclient

import (
	"bytes"
	"context"
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
	// pace is how its writes are paced (pace.go).
	pace WritePace
	// apiVersion is the REST API version every REST request to GitHub names
	// (X-GitHub-Api-Version): prmonitor reads nothing that version removed.
	apiVersion string

	mu   sync.Mutex
	last RateLimitInfo
	seen bool
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	gql := req.Method == http.MethodPost && sameEndpoint(req.URL, t.graphQL)
	// Only what may be sent twice is retried: REST GET and HEAD, and GraphQL requests their
	// sender marked as queries (withMark). The document itself is never read to decide.
	idempotent := req.Method == http.MethodGet || req.Method == http.MethodHead || (gql && marked(ctx, markQuery))

	// Buffer the body of requests that may be retried. Other bodies stream through untouched,
	// for one attempt.
	var body []byte
	buffered := false
	if req.Body != nil && req.Body != http.NoBody && idempotent {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read request body: %w", scrubError(t.token, err))
		}
		body, buffered = b, true
	}

	resource := t.resource(req, gql)
	for attempt := 1; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, context.Cause(ctx)
		}
		if err := t.passGate(ctx, resource); err != nil {
			return nil, err
		}
		if !idempotent && resource != "" {
			if err := t.paceWrite(ctx, req); err != nil {
				return nil, err
			}
		}
		resp, err := t.attempt(ctx, req, body, buffered, gql)
		logRequest(ctx, err)
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
	// The attempt runs detached from the caller's cancellation (send): once a request has gone
	// out, GitHub's answer to it is read even if the caller stops waiting, so a rate limit it
	// names still closes the gate.
	detached := context.WithoutCancel(ctx)
	var actx context.Context
	var cancel context.CancelFunc
	if t.retry.AttemptTimeout > 0 {
		actx, cancel = context.WithTimeout(detached, t.retry.AttemptTimeout)
	} else {
		actx, cancel = context.WithCancel(detached)
	}
	r := req.Clone(actx)
	if buffered {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.ContentLength = int64(len(body))
	}
	r.Header.Set("User-Agent", t.userAgent)
	if !marked(ctx, markTokenless) && t.authHosts[r.URL.Scheme+"://"+strings.ToLower(r.URL.Host)] {
		r.Header.Set("Authorization", "Bearer "+t.token.reveal())
		if !gql {
			r.Header.Set(apiVersionHeader, t.apiVersion)
		}
	}

	write := r.Method != http.MethodGet && r.Method != http.MethodHead && !marked(ctx, markQuery)
	resp, late, err := t.send(ctx, r, cancel, gql, write)
	if late {
		return nil, err // the caller stopped waiting; the answer is read in the background
	}
	// Answered: from here the caller's cancellation ends the attempt again (a streamed body's
	// reading, say), as the request's own context would; unless it ended already (a write's answer
	// awaited past it, send), when the answer is read to its end.
	if ctx.Err() == nil {
		unlink := context.AfterFunc(ctx, cancel)
		end := cancel
		cancel = func() { unlink(); end() }
	}
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
		if cerr := classifyGraphQL(resp.Header, data, now, t.token, marked(ctx, markPartial)); cerr != nil {
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
			fmt.Sprintf("no response within %s", t.retry.AttemptTimeout), errors.Join(err, &timeoutError{}))
	}
	return newAPIError(ErrUnavailable, t.token, err.Error(), err)
}

// lastRateLimit returns the newest rate-limit headers seen.
func (t *transport) lastRateLimit() (RateLimitInfo, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.seen
}

// mark is something the sender of a request tells the transport through the request's context.
// It is decided where the request is made, never guessed from the request.
type mark int

const (
	// markTokenless: the request must not carry the token, whatever its host. A pre-signed download
	// URL needs none, and may well be served from a GitHub host (GHES).
	markTokenless mark = iota + 1
	// markQuery: the GraphQL request is a query, which the transport may send again after a failure.
	// queryClient sets it; mutationClient never does.
	markQuery
	// markPartial: the sender reads a GraphQL answer with errors for some of its aliases itself
	// (a batch of pull requests, some of them gone or not answered in time): those errors do not
	// fail the request. Rate limits, and failures that name no alias, still do.
	markPartial
	// markContent: the write creates content (a comment, a reply, a review) GitHub's secondary
	// limits count per minute and hour (pace.go). REST paths that do are recognised without it.
	markContent
)

// withMark returns ctx with m set for every request made with it.
func withMark(ctx context.Context, m mark) context.Context { return context.WithValue(ctx, m, true) }

// marked reports whether m is set in ctx.
func marked(ctx context.Context, m mark) bool {
	v, _ := ctx.Value(m).(bool)
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

// RequestLog counts what a call sent to GitHub: the attempts that went out (past the gate and the
// write pacing) and those of them that timed out, which GitHub counts against the primary rate
// limit although they answered nothing. The watcher gives one to each request it makes
// (WithRequestLog), to charge its budget what GitHub charged. Safe for concurrent use.
type RequestLog struct {
	mu             sync.Mutex
	sent, timedOut int
}

// Sent is how many attempts went out.
func (l *RequestLog) Sent() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent
}

// TimedOut is how many of them timed out (no answer in time, a 502 or 504, or GitHub's "this may
// be the result of a timeout").
func (l *RequestLog) TimedOut() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.timedOut
}

type requestLogKey struct{}

// WithRequestLog returns ctx with l counting every attempt of every request made with it.
func WithRequestLog(ctx context.Context, l *RequestLog) context.Context {
	return context.WithValue(ctx, requestLogKey{}, l)
}

// logRequest counts one attempt that went out, and whether it timed out.
func logRequest(ctx context.Context, err error) {
	l, _ := ctx.Value(requestLogKey{}).(*RequestLog)
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent++
	if err != nil && isTimeout(err) {
		l.timedOut++
	}
}
