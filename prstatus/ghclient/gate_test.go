package ghclient

import (
	"context"
	"errors"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v92/github"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryGateStore is a GateStore in memory: what a state directory would keep across a restart.
type memoryGateStore struct {
	mu    sync.Mutex
	holds map[string]Hold
	saves int
}

func (m *memoryGateStore) LoadGate() (map[string]Hold, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.holds), nil
}

func (m *memoryGateStore) SaveGate(h map[string]Hold) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.holds, m.saves = maps.Clone(h), m.saves+1
	return nil
}

// counting answers every request with next and counts them.
type counting struct {
	mu    sync.Mutex
	calls []string
	next  func(http.ResponseWriter, *http.Request)
}

func (c *counting) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.ReadAll(r.Body)
	c.mu.Lock()
	c.calls = append(c.calls, r.Method+" "+r.URL.Path)
	c.mu.Unlock()
	c.next(w, r)
}

func (c *counting) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.calls)
}

func (c *counting) answer(next func(http.ResponseWriter, *http.Request)) {
	c.mu.Lock()
	c.next = next
	c.mu.Unlock()
}

// query posts a GraphQL query as queryClient does: marked as one, so the transport may retry it.
func query(t *testing.T, c *Client, ctx context.Context) error {
	t.Helper()
	req, err := http.NewRequestWithContext(withMark(ctx, markQuery), http.MethodPost, c.Endpoints().GraphQL, strings.NewReader(queryBody))
	require.NoError(t, err)
	resp, err := c.HTTPClient().Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	return err
}

func get(t *testing.T, c *Client, ctx context.Context, url string) error {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := c.HTTPClient().Do(req)
	if err == nil {
		_ = resp.Body.Close()
	}
	return err
}

func TestRetryAfterHoldsEveryRequestOfTheTokenUntilTheTimeGitHubNamed(t *testing.T) {
	gh := &counting{next: status(429, "Retry-After", "3600")}
	c, sl, srv := testClient(t, gh)

	err := query(t, c, t.Context())
	var rl *RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.False(t, rl.HeldBack, "GitHub's own answer")
	require.Equal(t, 1, gh.count())

	gh.answer(status(200))
	for _, do := range []func() error{
		func() error { return query(t, c, t.Context()) },
		func() error { return get(t, c, t.Context(), srv.URL+"/repos/o/r") },
		func() error { // a REST write through go-github
			_, resp, err := c.rest.PullRequests.RequestReviewers(t.Context(), "o", "r", 1, github.ReviewersRequest{Reviewers: []string{"a"}})
			return c.restError(t.Context(), resp, err)
		},
	} {
		err := do()
		require.ErrorAs(t, err, &rl)
		assert.True(t, rl.HeldBack)
		assert.Equal(t, time.Hour, rl.RetryAfter, "the fixed test clock has not moved")
		assert.Contains(t, err.Error(), "secondary rate limit")
	}
	assert.Equal(t, 1, gh.count(), "no request before the time GitHub named")
	assert.Empty(t, sl.recorded(), "an hour is not waited out inside a call")
}

func TestRateLimitHoldSurvivesARestart(t *testing.T) {
	store := &memoryGateStore{}
	gh := &counting{next: status(403, "Retry-After", "600")}
	gate := NewGate(store, func() time.Time { return testNow }, nil)
	c, _, _ := testClient(t, gh, func(cfg *Config) { cfg.Gate = gate })
	require.ErrorIs(t, query(t, c, t.Context()), ErrRateLimited)
	require.Equal(t, 1, store.saves)

	// A new process: a new gate over the same store, a new client.
	gh.answer(status(200))
	later := testNow.Add(5 * time.Minute)
	c2, _, _ := testClient(t, gh, func(cfg *Config) {
		cfg.Now = func() time.Time { return later }
		cfg.Gate = NewGate(store, cfg.Now, nil)
	})
	var rl *RateLimitError
	require.ErrorAs(t, query(t, c2, t.Context()), &rl)
	assert.True(t, rl.HeldBack)
	assert.Equal(t, 5*time.Minute, rl.RetryAfter)
	assert.Equal(t, 1, gh.count(), "the restarted client did not call GitHub")

	// Once the time has passed, a new process forgets the hold and calls GitHub.
	after := testNow.Add(11 * time.Minute)
	c3, _, _ := testClient(t, gh, func(cfg *Config) {
		cfg.Now = func() time.Time { return after }
		cfg.Gate = NewGate(store, cfg.Now, nil)
	})
	require.NoError(t, query(t, c3, t.Context()))
	assert.Equal(t, 2, gh.count())
}

func TestUsedUpPrimaryLimitHoldsOnlyItsResourceUntilReset(t *testing.T) {
	reset := testNow.Add(20 * time.Minute)
	gh := &counting{next: func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/graphql" {
			w.Header().Set("X-Ratelimit-Resource", "graphql")
			w.Header().Set("X-Ratelimit-Remaining", "0")
			w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		}
		status(200)(w, r)
	}}
	c, _, srv := testClient(t, gh)
	require.NoError(t, query(t, c, t.Context()), "the answer that used the last point is a success")
	var rl *RateLimitError
	require.ErrorAs(t, query(t, c, t.Context()), &rl, "the next query would only be refused")
	assert.True(t, rl.HeldBack)
	assert.Equal(t, 20*time.Minute, rl.RetryAfter)
	require.NoError(t, get(t, c, t.Context(), srv.URL+"/repos/o/r"), "REST has its own budget")
	assert.Equal(t, 2, gh.count())
}

func TestGateWaitsOutAShortHoldOnce(t *testing.T) {
	gate := NewGate(nil, func() time.Time { return testNow }, nil)
	gate.Hold(ScopeToken, testNow.Add(7*time.Second), "test")
	gh := &counting{next: status(200)}
	c, sl, _ := testClient(t, gh, func(cfg *Config) { cfg.Gate = gate })
	require.NoError(t, query(t, c, t.Context()))
	require.NoError(t, query(t, c, t.Context()))
	assert.Equal(t, []time.Duration{7 * time.Second}, sl.recorded(), "waited once, then the hold was served")
	assert.Equal(t, 2, gh.count())
}

func TestGateOnlyExtendsAHold(t *testing.T) {
	store := &memoryGateStore{}
	gate := NewGate(store, func() time.Time { return testNow }, nil)
	gate.Hold(ScopeToken, testNow.Add(time.Hour), "long")
	gate.Hold(ScopeToken, testNow.Add(time.Minute), "short")
	h, ok := gate.NotBefore("graphql")
	require.True(t, ok)
	assert.Equal(t, Hold{Until: testNow.Add(time.Hour), Reason: "long"}, h)
	assert.Equal(t, 1, store.saves, "nothing changed, nothing saved")
	_, ok = NewGate(store, func() time.Time { return testNow.Add(2 * time.Hour) }, nil).NotBefore("graphql")
	assert.False(t, ok, "a hold that is over is dropped when loaded")
}

// TestWaitsNeverOutliveTheCallersDeadline: a rate-limit wait, a backoff or a hung attempt that
// would run past the request's deadline is not started (or is cut at the deadline); the caller
// gets the cause at once and schedules the rest itself.
func TestWaitsNeverOutliveTheCallersDeadline(t *testing.T) {
	deadline := func(t *testing.T) context.Context {
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	tests := []struct {
		name   string
		answer func(http.ResponseWriter, *http.Request)
		wantIs error
	}{
		{"403 secondary limit without Retry-After (GitHub: wait a minute)", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, 403, map[string]any{"message": "You have exceeded a secondary rate limit."})
		}, ErrRateLimited},
		{"200 with errors[RATE_LIMITED]", func(w http.ResponseWriter, _ *http.Request) {
			writeJSON(w, 200, map[string]any{"errors": []map[string]any{{"type": "RATE_LIMITED", "message": "API rate limit exceeded"}}})
		}, ErrRateLimited},
		{"502: the backoff would pass the deadline", status(502), ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := &counting{next: tt.answer}
			c, sl, _ := testClient(t, gh, func(cfg *Config) { cfg.Retry.BaseDelay = time.Second })
			err := query(t, c, deadline(t))
			require.ErrorIs(t, err, tt.wantIs)
			assert.Equal(t, 1, gh.count())
			assert.Empty(t, sl.recorded(), "no wait was started")
		})
	}
	t.Run("a hung request is cut at the deadline, not after the per-attempt timeout", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		gh := &counting{next: func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}}
		c, _, _ := testClient(t, gh, func(cfg *Config) { cfg.Retry.AttemptTimeout = time.Minute })
		start := time.Now()
		err := query(t, c, deadline(t))
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 30*time.Second, "bounded by the deadline, not by the minute")
	})
	t.Run("a mutation's retry wait is not started past the deadline", func(t *testing.T) {
		gh := &counting{next: status(502)}
		c, sl, _ := testClient(t, gh)
		ctx := deadline(t)
		err := c.ResolveThread(ctx, "T1")
		require.Error(t, err)
		assert.False(t, errors.Is(err, context.DeadlineExceeded), "GitHub's failure, at once: %v", err)
		assert.Equal(t, 2, gh.count(), "one attempt, then one read to see whether it landed anyway")
		assert.Empty(t, sl.recorded())
	})
}
