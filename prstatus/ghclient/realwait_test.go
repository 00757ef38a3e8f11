package ghclient

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run the client with its real sleep (sleepContext) and real clock inside a
// testing/synctest bubble: time is fake and advances only while every goroutine of the bubble
// waits, so a 30 s wait takes no real time and the time that passed is exact. The base transport
// answers in memory (a socket would not let the bubble's clock advance).

// memTransport answers the n-th request (from 1) with steps[n-1], repeating the last step.
type memTransport struct {
	calls atomic.Int32
	steps []func(*http.Request) (*http.Response, error)
}

func (m *memTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	n := int(m.calls.Add(1))
	return m.steps[min(n, len(m.steps))-1](r)
}

func memStatus(code int, header ...string) func(*http.Request) (*http.Response, error) {
	return func(r *http.Request) (*http.Response, error) {
		h := http.Header{}
		for i := 0; i+1 < len(header); i += 2 {
			h.Set(header[i], header[i+1])
		}
		body := ""
		if code == http.StatusOK {
			body = `{"data":{"viewer":{"login":"me"}}}`
		}
		return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
}

// memHang answers only when the request's context ends: a GitHub that never responds.
func memHang(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

// realWaitClient is a client with the production defaults for the clock, the sleep and the retry
// policy; only the jitter is pinned to 0 so a backoff is exactly half its step.
func realWaitClient(t *testing.T, base http.RoundTripper) *Client {
	t.Helper()
	c, err := New(Config{
		RESTURL:   "https://api.github.test",
		Token:     NewToken(testToken),
		Transport: base,
		Jitter:    func(time.Duration) time.Duration { return 0 },
	})
	require.NoError(t, err)
	return c
}

// getRepo sends a REST GET, which the transport may retry, and returns how much (fake) time the
// call took.
func getRepo(t *testing.T, c *Client) (time.Duration, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://api.github.test/repos/o/r", nil)
	require.NoError(t, err)
	start := time.Now()
	resp, err := c.HTTPClient().Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	return time.Since(start), err
}

func TestTheRealSleepWaitsOutBackoffAndRateLimits(t *testing.T) {
	tests := []struct {
		name      string
		first     func(*http.Request) (*http.Response, error)
		wantTaken time.Duration
	}{
		{name: "a 502 backs off half of the first 1 s step (no jitter)", first: memStatus(502), wantTaken: 500 * time.Millisecond},
		{name: "a 429 with Retry-After 7 waits 7 s", first: memStatus(429, "Retry-After", "7"), wantTaken: 7 * time.Second},
		{name: "a 429 with Retry-After 0 waits the 1 s minimum, not the 60 s of a missing header", first: memStatus(429, "Retry-After", "0"), wantTaken: time.Second},
		{name: "a 403 secondary limit with Retry-After 0 waits 1 s", first: memStatus(403, "Retry-After", "0"), wantTaken: time.Second},
		{name: "a 429 without Retry-After waits GitHub's minute", first: memStatus(429), wantTaken: time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				base := &memTransport{steps: []func(*http.Request) (*http.Response, error){tt.first, memStatus(200)}}
				taken, err := getRepo(t, realWaitClient(t, base))
				require.NoError(t, err)
				assert.Equal(t, int32(2), base.calls.Load(), "attempts")
				assert.Equal(t, tt.wantTaken, taken, "time waited before the second attempt")
			})
		})
	}
}

func TestAnAttemptWithoutAnswerIsAbandonedAfterTheDefault30Seconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		base := &memTransport{steps: []func(*http.Request) (*http.Response, error){memHang, memStatus(200)}}
		taken, err := getRepo(t, realWaitClient(t, base))
		require.NoError(t, err)
		assert.Equal(t, int32(2), base.calls.Load(), "the hung attempt was retried")
		assert.Equal(t, 30*time.Second+500*time.Millisecond, taken, "30 s attempt timeout, then half a second of backoff")
	})
}

func TestDefaultRetryPolicyValues(t *testing.T) {
	assert.Equal(t, RetryPolicy{
		MaxAttempts:      4,
		BaseDelay:        time.Second,
		MaxDelay:         15 * time.Second,
		MaxRateLimitWait: 90 * time.Second,
		AttemptTimeout:   30 * time.Second,
		LateAnswerWait:   5 * time.Second,
	}, DefaultRetryPolicy())
}

func TestSleepContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		require.NoError(t, sleepContext(t.Context(), 5*time.Second))
		assert.Equal(t, 5*time.Second, time.Since(start), "a positive wait really waits")

		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(2*time.Second, cancel)
		start = time.Now()
		require.ErrorIs(t, sleepContext(ctx, time.Hour), context.Canceled)
		assert.Equal(t, 2*time.Second, time.Since(start), "cancellation cuts the wait short")

		for range 20 { // a zero wait on a done context reports it every time, never a coin toss
			require.ErrorIs(t, sleepContext(ctx, 0), context.Canceled)
		}
		start = time.Now()
		require.NoError(t, sleepContext(t.Context(), 0))
		require.NoError(t, sleepContext(t.Context(), -time.Second))
		assert.Zero(t, time.Since(start), "nothing to wait")
	})
}
