package ghclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// script answers the n-th request (from 1) with steps[n-1], repeating the last step.
type script struct {
	calls  atomic.Int32
	steps  []func(w http.ResponseWriter, r *http.Request)
	bodies []string
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.calls.Add(1))
	b, _ := io.ReadAll(r.Body)
	s.bodies = append(s.bodies, string(b))
	s.steps[min(n, len(s.steps))-1](w, r)
}

func status(code int, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		if code == 200 {
			_, _ = io.WriteString(w, `{"data":{"viewer":{"login":"me"}}}`)
		}
	}
}

func gqlRateLimited(reset time.Time) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Ratelimit-Remaining", "0")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		_, _ = io.WriteString(w, `{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded"}]}`)
	}
}

func TestRetry(t *testing.T) {
	policy := func(c *Config) {
		c.Retry = RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: 3 * time.Second, MaxRateLimitWait: time.Minute}
	}
	tests := []struct {
		name      string
		method    string // GET (REST), POST (REST), QUERY, MUTATION or UNMARKED (GraphQL)
		steps     []func(http.ResponseWriter, *http.Request)
		wantCalls int
		wantWaits []time.Duration
		wantIs    error // nil: success
	}{
		{name: "GET 502 then OK", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(502), status(200)}, wantCalls: 2, wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "GET always 503: bounded, backoff doubles up to the cap", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(503)}, wantCalls: 4,
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second, 1500 * time.Millisecond}, wantIs: ErrUnavailable},
		{name: "HEAD 500 then OK", method: "HEAD", steps: []func(http.ResponseWriter, *http.Request){status(500), status(200)}, wantCalls: 2, wantWaits: []time.Duration{500 * time.Millisecond}},
		{name: "GraphQL query 502 then OK", method: "QUERY", steps: []func(http.ResponseWriter, *http.Request){status(502), status(504), status(200)}, wantCalls: 3,
			wantWaits: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "GraphQL mutation 502 is not retried", method: "MUTATION", steps: []func(http.ResponseWriter, *http.Request){status(502), status(200)}, wantCalls: 1, wantIs: ErrUnavailable},
		{name: "a GraphQL query its sender did not mark is not retried: no document is read", method: "UNMARKED", steps: []func(http.ResponseWriter, *http.Request){status(502), status(200)}, wantCalls: 1, wantIs: ErrUnavailable},
		{name: "GraphQL mutation rate limit is not waited out", method: "MUTATION", steps: []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "5"), status(200)}, wantCalls: 1, wantIs: ErrRateLimited},
		{name: "REST POST 503 is not retried", method: "POST", steps: []func(http.ResponseWriter, *http.Request){status(503), status(201)}, wantCalls: 1, wantIs: ErrUnavailable},
		{name: "429 Retry-After honoured", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "5"), status(200)}, wantCalls: 2, wantWaits: []time.Duration{5 * time.Second}},
		{name: "403 secondary limit Retry-After honoured", method: "QUERY", steps: []func(http.ResponseWriter, *http.Request){status(403, "Retry-After", "30"), status(200)}, wantCalls: 2, wantWaits: []time.Duration{30 * time.Second}},
		{name: "Retry-After beyond the maximum returns at once", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "3600"), status(200)}, wantCalls: 1, wantIs: ErrRateLimited},
		{name: "exhausted primary limit waits until reset", method: "QUERY",
			steps:     []func(http.ResponseWriter, *http.Request){gqlRateLimited(testNow.Add(40 * time.Second)), status(200)},
			wantCalls: 2, wantWaits: []time.Duration{40 * time.Second}},
		{name: "exhausted primary limit far away returns at once", method: "QUERY",
			steps:     []func(http.ResponseWriter, *http.Request){gqlRateLimited(testNow.Add(time.Hour)), status(200)},
			wantCalls: 1, wantIs: ErrRateLimited},
		{name: "reset already passed still waits a second", method: "GET",
			steps:     []func(http.ResponseWriter, *http.Request){status(403, "X-Ratelimit-Remaining", "0", "X-Ratelimit-Reset", strconv.FormatInt(testNow.Add(-time.Second).Unix(), 10)), status(200)},
			wantCalls: 2, wantWaits: []time.Duration{time.Second}},
		{name: "401 is final", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(401), status(200)}, wantCalls: 1, wantIs: ErrUnauthorized},
		{name: "403 is final", method: "QUERY", steps: []func(http.ResponseWriter, *http.Request){status(403), status(200)}, wantCalls: 1, wantIs: ErrForbidden},
		{name: "404 is final", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(404), status(200)}, wantCalls: 1, wantIs: ErrNotFound},
		{name: "501 is final", method: "GET", steps: []func(http.ResponseWriter, *http.Request){status(501), status(200)}, wantCalls: 1, wantIs: ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &script{steps: tt.steps}
			c, sl, srv := testClient(t, s, policy)
			var req *http.Request
			var err error
			switch tt.method {
			case "QUERY": // as queryClient sends it
				req, err = http.NewRequestWithContext(withMark(t.Context(), markQuery), http.MethodPost, c.Endpoints().GraphQL, strings.NewReader(queryBody))
			case "MUTATION", "UNMARKED":
				body := mutationBody
				if tt.method == "UNMARKED" {
					body = queryBody
				}
				req, err = http.NewRequest(http.MethodPost, c.Endpoints().GraphQL, strings.NewReader(body))
			case "POST":
				req, err = http.NewRequest(http.MethodPost, srv.URL+"/repos/o/r/actions/runs/1/rerun-failed-jobs", nil)
			default:
				req, err = http.NewRequest(tt.method, srv.URL+"/repos/o/r", nil)
			}
			require.NoError(t, err)
			resp, err := c.HTTPClient().Do(req)
			if tt.wantIs == nil {
				require.NoError(t, err)
				_ = resp.Body.Close()
			} else {
				require.ErrorIs(t, err, tt.wantIs)
				assertCleanError(t, err)
			}
			assert.Equal(t, tt.wantCalls, int(s.calls.Load()), "attempts")
			assert.Equal(t, tt.wantWaits, sl.recorded(), "waits")
			if strings.HasPrefix(tt.method, "QUERY") {
				for _, b := range s.bodies {
					assert.Equal(t, queryBody, b, "every attempt sends the same body")
				}
			}
		})
	}
}

// flakyTransport fails the first n round trips with err, then delegates.
type flakyTransport struct {
	n     int32
	err   error
	calls atomic.Int32
	next  http.RoundTripper
}

func (f *flakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.calls.Add(1) <= f.n {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, f.err
	}
	return f.next.RoundTrip(r)
}

func TestRetryConnectionFailures(t *testing.T) {
	tests := []struct {
		name string
		err  error
	}{
		{"connection reset", &netOpError{syscall.ECONNRESET}},
		{"connection refused", &netOpError{syscall.ECONNREFUSED}},
		{"unexpected EOF", io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := &flakyTransport{n: 2, err: tt.err, next: http.DefaultTransport}
			c, sl, srv := testClient(t, http.HandlerFunc(status(200)), func(c *Config) { c.Transport = ft })
			resp, err := c.HTTPClient().Get(srv.URL + "/x")
			require.NoError(t, err)
			_ = resp.Body.Close()
			assert.Equal(t, int32(3), ft.calls.Load())
			assert.Len(t, sl.recorded(), 2)
		})
	}
	t.Run("gives up as unavailable, wrapping the cause", func(t *testing.T) {
		ft := &flakyTransport{n: 100, err: &netOpError{syscall.ECONNRESET}, next: http.DefaultTransport}
		c, _, srv := testClient(t, http.HandlerFunc(status(200)), func(c *Config) { c.Transport = ft })
		_, err := c.HTTPClient().Get(srv.URL + "/x")
		require.ErrorIs(t, err, ErrUnavailable)
		require.ErrorIs(t, err, syscall.ECONNRESET)
		assert.Equal(t, int32(DefaultRetryPolicy().MaxAttempts), ft.calls.Load())
	})
	t.Run("a real refused connection", func(t *testing.T) {
		c, _, srv := testClient(t, http.HandlerFunc(status(200)), noRetry)
		srv.Close()
		_, err := c.HTTPClient().Get(srv.URL + "/x")
		require.ErrorIs(t, err, ErrUnavailable)
		assertCleanError(t, err)
	})
}

// netOpError is a minimal net.Error-like wrapper around a syscall error.
type netOpError struct{ err error }

func (e *netOpError) Error() string { return "read tcp 127.0.0.1:1->127.0.0.1:2: " + e.err.Error() }
func (e *netOpError) Unwrap() error { return e.err }

func TestRetryAttemptTimeout(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		if calls.Add(1) == 1 {
			select { // hang until the client gives up on this attempt (bounded: a test must never hang CI)
			case <-r.Context().Done():
			case <-release:
			case <-time.After(10 * time.Second):
			}
			return
		}
		status(200)(w, r)
	})
	c, sl, _ := testClient(t, h, func(c *Config) { c.Retry.AttemptTimeout = 20 * time.Millisecond })
	t.Cleanup(func() { close(release) }) // runs before the server closes
	require.NoError(t, query(t, c, t.Context()))
	assert.Equal(t, int32(2), calls.Load())
	assert.Len(t, sl.recorded(), 1)
}

func TestRetryHonoursCancellation(t *testing.T) {
	t.Run("cancelled while waiting", func(t *testing.T) {
		s := &script{steps: []func(http.ResponseWriter, *http.Request){status(503)}}
		ctx, cancel := context.WithCancel(t.Context())
		c, _, srv := testClient(t, s, func(c *Config) {
			c.Sleep = func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() }
		})
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/x", nil)
		_, err := c.HTTPClient().Do(req)
		require.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, ErrUnavailable)
		assert.Equal(t, int32(1), s.calls.Load(), "no attempt after cancellation")
	})
	t.Run("cancelled before", func(t *testing.T) {
		s := &script{steps: []func(http.ResponseWriter, *http.Request){status(200)}}
		c, _, srv := testClient(t, s)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/x", nil)
		_, err := c.HTTPClient().Do(req)
		require.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, s.calls.Load())
	})
	t.Run("default sleep returns when cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		start := time.Now()
		err := sleepContext(ctx, time.Hour)
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), time.Second)
		require.NoError(t, sleepContext(t.Context(), time.Millisecond))
	})
}

func TestBackoff(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 10 * time.Second}
	top := func(d time.Duration) time.Duration { return d - 1 }
	zero := func(time.Duration) time.Duration { return 0 }
	for attempt, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 60: 10 * time.Second} {
		assert.Equal(t, want-1, p.backoff(attempt, top), "attempt %d, top of the jitter", attempt)
		assert.Equal(t, want/2, p.backoff(attempt, zero), "attempt %d, bottom of the jitter", attempt)
	}
	for range 100 {
		d := p.backoff(3, defaultJitter)
		assert.GreaterOrEqual(t, d, 2*time.Second)
		assert.Less(t, d, 4*time.Second)
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	assert.Equal(t, DefaultRetryPolicy(), RetryPolicy{}.withDefaults())
	p := RetryPolicy{MaxAttempts: 1, MaxRateLimitWait: -1, AttemptTimeout: -1}.withDefaults()
	assert.Equal(t, 1, p.MaxAttempts)
	assert.Zero(t, p.MaxRateLimitWait)
	assert.Zero(t, p.AttemptTimeout)
}

func TestRetryableExcludesCertificateFailures(t *testing.T) {
	assert.True(t, retryable(newAPIError(ErrUnavailable, Token{}, "x", errors.New("reset"))))
	assert.False(t, retryable(newAPIError(ErrUnavailable, Token{}, "x", &statusError{code: 501})))
}
