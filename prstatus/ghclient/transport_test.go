package ghclient

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shurcooL/githubv4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

func TestTransportHeaders(t *testing.T) {
	var got http.Header
	c, _, srv := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		status(200)(w, r)
	}))
	for _, do := range []func() (*http.Response, error){
		func() (*http.Response, error) { return c.HTTPClient().Get(srv.URL + "/repos/o/r") },
		func() (*http.Response, error) {
			return c.HTTPClient().Post(c.Endpoints().GraphQL, "application/json", strings.NewReader(queryBody))
		},
	} {
		resp, err := do()
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, "Bearer "+testToken, got.Get("Authorization"))
		assert.Equal(t, "prmonitor/1.2.3", got.Get("User-Agent"))
	}
}

func TestTransportDoesNotModifyTheCallersRequest(t *testing.T) {
	c, _, srv := testClient(t, http.HandlerFunc(status(200)))
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/x", nil)
	require.NoError(t, err)
	resp, err := c.HTTPClient().Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Empty(t, req.Header.Get("Authorization"))
}

func TestTokenGoesOnlyToGitHub(t *testing.T) {
	// A job-log download redirects to blob storage on another host: it must not get the token.
	var elsewhere http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere = r.Header.Clone()
		_, _ = io.WriteString(w, "log line 1\n")
	}))
	t.Cleanup(other.Close)
	c, _, srv := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/logs?sig=x", http.StatusFound)
	}))
	resp, err := c.HTTPClient().Get(srv.URL + "/repos/o/r/actions/jobs/1/logs")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, "log line 1\n", string(body))
	require.NotNil(t, elsewhere)
	assert.Empty(t, elsewhere.Get("Authorization"))
	assert.Equal(t, "prmonitor/1.2.3", elsewhere.Get("User-Agent"))
}

func TestLastRateLimit(t *testing.T) {
	reset := testNow.Add(time.Hour).Truncate(time.Second)
	c, _, srv := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Ratelimit-Limit", "5000")
		w.Header().Set("X-Ratelimit-Remaining", "4990")
		w.Header().Set("X-Ratelimit-Used", "10")
		w.Header().Set("X-Ratelimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		w.Header().Set("X-Ratelimit-Resource", "graphql")
		status(200)(w, r)
	}))
	_, ok := c.LastRateLimit()
	assert.False(t, ok, "nothing seen yet")
	resp, err := c.HTTPClient().Get(srv.URL + "/x")
	require.NoError(t, err)
	_ = resp.Body.Close()
	got, ok := c.LastRateLimit()
	require.True(t, ok)
	assert.Equal(t, RateLimitInfo{Resource: "graphql", Limit: 5000, Remaining: 4990, Used: 10, ResetAt: reset, ObservedAt: testNow}, got)
}

func TestStreamedBodyOutlivesRoundTrip(t *testing.T) {
	// The per-attempt timeout must not cut a REST body the caller is still reading.
	payload := strings.Repeat("x", 1<<20)
	c, _, srv := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, payload)
	}), func(c *Config) { c.Retry.AttemptTimeout = time.Minute })
	resp, err := c.HTTPClient().Get(srv.URL + "/x")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Len(t, b, len(payload))
}

// leakyTransport fails with an error that quotes the Authorization header, as a careless proxy
// or middleware might.
type leakyTransport struct{}

func (leakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, fmt.Errorf("proxy said: bad header %q\nsecond line", r.Header.Get("Authorization"))
}

func TestTokenNeverInErrorsOrLogs(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	t.Run("wrapped transport error", func(t *testing.T) {
		c, _, srv := testClient(t, http.HandlerFunc(status(200)), func(c *Config) {
			c.Transport = leakyTransport{}
			c.Logger = logger
		})
		_, err := c.HTTPClient().Get(srv.URL + "/x")
		require.ErrorIs(t, err, ErrUnavailable)
		assertCleanError(t, err)
		assert.Contains(t, err.Error(), "Bearer "+redacted)

		_, err = c.HTTPClient().Post(c.Endpoints().GraphQL, "application/json", strings.NewReader(queryBody))
		assertCleanError(t, err)
	})
	t.Run("GitHub echoing the token", func(t *testing.T) {
		echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			msg := "bad token " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			switch r.URL.Path {
			case "/graphql":
				writeJSON(w, 200, map[string]any{"errors": []map[string]any{{"type": "NOT_FOUND", "message": msg}}})
			case "/rate":
				w.Header().Set("Retry-After", "9999")
				writeJSON(w, 429, map[string]any{"message": msg})
			case "/other":
				writeJSON(w, 200, map[string]any{"errors": []map[string]any{{"message": msg}}})
			default:
				writeJSON(w, 401, map[string]any{"message": msg})
			}
		})
		c, _, srv := testClient(t, echo, func(c *Config) { c.Logger = logger })
		_, err := c.HTTPClient().Get(srv.URL + "/x")
		require.ErrorIs(t, err, ErrUnauthorized)
		assertCleanError(t, err)
		_, err = c.HTTPClient().Post(c.Endpoints().GraphQL, "application/json", strings.NewReader(queryBody))
		require.ErrorIs(t, err, ErrNotFound)
		assertCleanError(t, err)
		_, err = c.HTTPClient().Get(srv.URL + "/rate")
		require.ErrorIs(t, err, ErrRateLimited)
		assertCleanError(t, err)
		// The gate now holds the token back, and says why in GitHub's (scrubbed) words.
		_, err = c.HTTPClient().Get(srv.URL + "/x")
		require.ErrorIs(t, err, ErrRateLimited)
		assertCleanError(t, err)

		// An unclassified GraphQL error reaches githubv4, whose error the client scrubs.
		var q struct{ Viewer struct{ Login string } }
		c2, _, _ := testClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.URL.Path = "/other"
			echo(w, r)
		}))
		err = c2.callError(c2.gql.Query(t.Context(), &q, nil))
		require.Error(t, err)
		assertCleanError(t, err)
		assert.Contains(t, err.Error(), "bad token "+redacted)
	})
	t.Run("GitHub echoing the token in fullwidth letters, or split by a hidden comment", func(t *testing.T) {
		styled := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			wide := strings.Map(func(c rune) rune { return c + 0xfee0 }, tok) // every byte is printable ASCII
			writeJSON(w, 401, map[string]any{"message": "bad token " + wide + " or " + tok[:6] + "<!-- x -->" + tok[6:]})
		})
		c, _, srv := testClient(t, styled, func(c *Config) { c.Logger = logger })
		_, err := c.HTTPClient().Get(srv.URL + "/x")
		require.ErrorIs(t, err, ErrUnauthorized)
		assertCleanError(t, err)
		assert.NotContains(t, sanitize.ForReader(err.Error()), testToken, "a reader shown the message never sees the token")
		assert.Equal(t, 2, strings.Count(err.Error(), redacted), err.Error())
	})
	t.Run("retries are logged without the token", func(t *testing.T) {
		s := &script{steps: []func(http.ResponseWriter, *http.Request){status(502), status(200)}}
		c, _, srv := testClient(t, s, func(c *Config) { c.Logger = logger })
		resp, err := c.HTTPClient().Get(srv.URL + "/x?access_token=" + testToken)
		require.NoError(t, err)
		_ = resp.Body.Close()
	})
	assert.Contains(t, logs.String(), "retrying")
	assert.NotContains(t, logs.String(), testToken)
}

func TestNewValidates(t *testing.T) {
	_, err := New(Config{})
	require.ErrorIs(t, err, ErrNoToken)
	_, err = New(Config{Token: NewToken("a b")})
	require.ErrorIs(t, err, ErrNoToken)
	_, err = New(Config{Token: NewToken("t"), RESTURL: "http://ghe.example.com/api/v3"})
	require.ErrorIs(t, err, ErrBadURL)
	_, err = New(Config{Token: NewToken("t"), GraphQLURL: "::"})
	require.ErrorIs(t, err, ErrBadURL)

	c, err := New(Config{Token: NewToken("t")})
	require.NoError(t, err)
	assert.Equal(t, Endpoints{REST: "https://api.github.com", GraphQL: "https://api.github.com/graphql"}, c.Endpoints())
	c, err = New(Config{Token: NewToken("t"), RESTURL: "https://ghe.example.com/api/v3/"})
	require.NoError(t, err)
	assert.Equal(t, Endpoints{REST: "https://ghe.example.com/api/v3", GraphQL: "https://ghe.example.com/api/graphql"}, c.Endpoints())
}

// TestGraphQLRetryIsDecidedWhereSent: the client's query path marks its requests as queries and
// the transport retries them; its mutation path does not, and the transport sends a mutation once,
// whatever the document says.
func TestGraphQLRetryIsDecidedWhereSent(t *testing.T) {
	t.Run("a query is retried past a 502", func(t *testing.T) {
		s := &script{steps: []func(http.ResponseWriter, *http.Request){status(502), status(200)}}
		c, sl, _ := testClient(t, s)
		var q struct{ Viewer struct{ Login string } }
		require.NoError(t, c.gql.Query(t.Context(), &q, nil))
		assert.Equal(t, "me", q.Viewer.Login)
		assert.Equal(t, int32(2), s.calls.Load())
		assert.Len(t, sl.recorded(), 1)
		assert.True(t, strings.HasPrefix(s.bodies[0], `{"query":"{viewer{login}}"`), s.bodies[0])
		assert.Equal(t, s.bodies[0], s.bodies[1], "the same document, sent again")
	})
	t.Run("a mutation is sent once", func(t *testing.T) {
		s := &script{steps: []func(http.ResponseWriter, *http.Request){status(502), status(200)}}
		c, sl, _ := testClient(t, s)
		var m resolveMutation
		err := c.mut.Mutate(t.Context(), &m, githubv4.ResolveReviewThreadInput{ThreadID: "T"}, nil)
		require.ErrorIs(t, err, ErrUnavailable)
		assert.Equal(t, int32(1), s.calls.Load())
		assert.Empty(t, sl.recorded())
	})
}
