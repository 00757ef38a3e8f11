package ghclient

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// movingClock is a clock that sleeping moves forward, shared by the clients of one token.
type movingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *movingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *movingClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	return ctx.Err()
}

// writesAt serves every request with 200 {} and records when (on clk) each write arrived.
func writesAt(clk *movingClock, got *[]time.Time, mu *sync.Mutex) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			mu.Lock()
			*got = append(*got, clk.Now())
			mu.Unlock()
		}
		writeJSON(w, http.StatusCreated, map[string]any{"id": 1})
	})
}

func TestWritesOfOneTokenAreASecondApartAcrossClients(t *testing.T) {
	clk := &movingClock{now: testNow}
	var mu sync.Mutex
	var got []time.Time
	gate := NewGate(nil, clk.Now, nil)
	h := writesAt(clk, &got, &mu)
	mk := func() *Client {
		c, _, _ := testClient(t, h, func(cfg *Config) { cfg.Now, cfg.Sleep, cfg.Gate, cfg.WritePace = clk.Now, clk.sleep, gate, paced() })
		return c
	}
	a, b := mk(), mk()
	for i, c := range []*Client{a, b, a, b} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, c.Endpoints().REST+"/repos/o/r/actions/runs/1/rerun", nil)
		require.NoError(t, err)
		resp, err := c.HTTPClient().Do(req)
		require.NoError(t, err, "write %d", i)
		_ = resp.Body.Close()
	}
	require.Len(t, got, 4)
	for i := 1; i < len(got); i++ {
		assert.GreaterOrEqual(t, got[i].Sub(got[i-1]), WriteGap, "write %d came %s after the one before", i, got[i].Sub(got[i-1]))
	}
	get, err := http.NewRequestWithContext(t.Context(), http.MethodGet, a.Endpoints().REST+"/repos/o/r/pulls/1", nil)
	require.NoError(t, err)
	before := clk.Now()
	resp, err := a.HTTPClient().Do(get)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, before, clk.Now(), "reads are not paced")
}

func TestContentCreationStaysUnderGitHubsLimits(t *testing.T) {
	var p pacer
	now := testNow
	// A burst of replies a second apart: the first ContentPerMinute go at once after another.
	for i := range ContentPerMinute {
		at, why := p.slot(now.Add(time.Duration(i)*WriteGap), true, GitHubWritePace())
		assert.Equal(t, now.Add(time.Duration(i)*WriteGap), at, why)
		p.reserve(at, true, WriteGap)
	}

	// The minute is full: the next reply waits for the oldest of it to leave.
	var q pacer
	for i := range ContentPerMinute {
		q.reserve(now.Add(-59*time.Second+time.Duration(i)*100*time.Millisecond), true, WriteGap)
	}
	at, why := q.slot(now, true, GitHubWritePace())
	assert.Equal(t, now.Add(time.Second), at, "the oldest reply leaves the minute a second from now")
	assert.Contains(t, why, "at most 75 comments, replies or reviews a minute")
	plain, _ := q.slot(now.Add(time.Second), false, GitHubWritePace())
	assert.Equal(t, now.Add(time.Second), plain, "other writes only keep their second")

	// An hour's worth, spread so that no minute fills: the hourly limit holds.
	var h pacer
	for i := range ContentPerHour {
		h.reserve(now.Add(time.Duration(i)*7*time.Second), true, WriteGap)
	}
	at, why = h.slot(now.Add(ContentPerHour*7*time.Second), true, GitHubWritePace())
	assert.Equal(t, now.Add(time.Hour), at)
	assert.Contains(t, why, "an hour")
}

func TestAWriteThatWouldWaitTooLongIsHeldBackAndStatusCanSayUntilWhen(t *testing.T) {
	clk := &movingClock{now: testNow}
	var mu sync.Mutex
	var got []time.Time
	gate := NewGate(nil, clk.Now, nil)
	c, _, _ := testClient(t, writesAt(clk, &got, &mu), func(cfg *Config) {
		cfg.Now, cfg.Sleep, cfg.Gate, cfg.WritePace = clk.Now, clk.sleep, gate, paced()
		cfg.Retry.MaxRateLimitWait = 10 * time.Second
	})
	gate.mu.Lock()
	for range ContentPerMinute {
		gate.pace.reserve(testNow.Add(-30*time.Second), true, WriteGap)
	}
	gate.mu.Unlock()
	assert.Equal(t, ContentPerMinute, gate.WritePacing().ContentLastMinute)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, c.Endpoints().REST+"/repos/o/r/issues/1/comments", nil)
	require.NoError(t, err)
	_, err = c.HTTPClient().Do(req)
	var rl *RateLimitError
	require.True(t, errors.As(err, &rl), "%v", err)
	assert.True(t, rl.HeldBack, "not sent")
	assert.Contains(t, rl.Message, "prmonitor paces its writes")
	assert.Empty(t, got, "nothing reached GitHub")
	wp := gate.WritePacing()
	assert.Equal(t, testNow.Add(30*time.Second), wp.HeldUntil, "status can show when the held write may go")
	assert.Contains(t, wp.Reason, "a minute")
}

func TestRESTRequestsNameThePinnedAPIVersion(t *testing.T) {
	tests := []struct {
		name, rest, configured, want string
	}{
		{name: "github.com", rest: "https://api.github.com", want: RESTAPIVersion20260310},
		{name: "GitHub Enterprise Cloud with data residency", rest: "https://api.acme.ghe.com", want: RESTAPIVersion20260310},
		{name: "GitHub Enterprise Server", rest: "https://ghe.acme.example/api/v3", want: RESTAPIVersion20221128},
		{name: "configured", rest: "https://ghe.acme.example/api/v3", configured: RESTAPIVersion20260310, want: RESTAPIVersion20260310},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var gotREST, gotGraphQL []string
			var mu sync.Mutex
			c, err := New(Config{
				RESTURL: tt.rest, Token: NewToken(testToken), RESTAPIVersion: tt.configured,
				Transport: transportFunc(func(r *http.Request) (*http.Response, error) {
					mu.Lock()
					defer mu.Unlock()
					if r.URL.Path == "/graphql" || r.URL.Path == "/api/graphql" {
						gotGraphQL = append(gotGraphQL, r.Header.Get("X-GitHub-Api-Version"))
					} else {
						gotREST = append(gotREST, r.Header.Get("X-GitHub-Api-Version"))
					}
					return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
						Body: http.NoBody, Request: r}, nil
				}),
			})
			require.NoError(t, err)
			_, _, _ = c.REST().PullRequests.Get(t.Context(), "o", "r", 1)
			_, _ = c.HeadSHA(t.Context(), prstatus.PRRef{Owner: "o", Repo: "r", Number: 1})
			require.NotEmpty(t, gotREST)
			for _, v := range gotREST {
				assert.Equal(t, tt.want, v)
			}
			for _, v := range gotGraphQL {
				assert.Empty(t, v, "GraphQL has no versions")
			}
		})
	}
}

func TestARequestLogCountsTheAttemptsThatTimedOut(t *testing.T) {
	calls := 0
	c, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		switch calls {
		case 1:
			writeJSON(w, http.StatusGatewayTimeout, map[string]any{"message": "We couldn't respond to your request in time."})
		case 2:
			writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []any{map[string]any{
				"message": "Something went wrong while executing your query. This may be the result of a timeout, or it could be a GitHub bug."}}})
		case 3:
			writeJSON(w, http.StatusBadGateway, map[string]any{"message": "Server Error"})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{"headRefOid": "abc"}}}})
		}
	}))
	log := &RequestLog{}
	head, err := c.HeadSHA(WithRequestLog(t.Context(), log), prstatus.PRRef{Owner: "o", Repo: "r", Number: 1})
	require.NoError(t, err)
	assert.Equal(t, "abc", head)
	assert.Equal(t, 4, log.Sent())
	assert.Equal(t, 3, log.TimedOut(), "a 504, GitHub's timeout message and a 502 all count against the limit")
}

type transportFunc func(*http.Request) (*http.Response, error)

func (f transportFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// paced is GitHub's pace, for a test server on the loopback interface (not paced by default).
func paced() *WritePace {
	p := GitHubWritePace()
	return &p
}

func TestGitHubIsPacedAndASimulatedOneOnTheLoopbackIsNot(t *testing.T) {
	assert.Equal(t, GitHubWritePace(), writePaceFor("https://api.github.com"))
	assert.Equal(t, GitHubWritePace(), writePaceFor("https://ghe.acme.example/api/v3"))
	assert.Equal(t, WritePace{}, writePaceFor("http://127.0.0.1:8080"))
	assert.Equal(t, WritePace{}, writePaceFor("http://[::1]:8080/api/v3"))
	assert.Equal(t, WritePace{}, writePaceFor("http://localhost:3000"))
}
