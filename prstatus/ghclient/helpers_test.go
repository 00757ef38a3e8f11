package ghclient

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testToken is the secret the tests hunt for in errors and logs.
const testToken = "ghp_TESTSECRET0123456789abcdefABCDEF"

// testNow is the fixed clock of every test.
var testNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// sleeper records the waits the transport asked for, and returns at once.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// testClient serves h on a local server and returns a client for it with a fixed clock, an
// instant sleep, no jitter and the given config tweaks.
func testClient(t *testing.T, h http.Handler, tweak ...func(*Config)) (*Client, *sleeper, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	sl := &sleeper{}
	cfg := Config{
		RESTURL: srv.URL,
		Token:   NewToken(testToken),
		Version: "1.2.3",
		Now:     func() time.Time { return testNow },
		Sleep:   sl.sleep,
		Jitter:  func(time.Duration) time.Duration { return 0 },
	}
	for _, f := range tweak {
		f(&cfg)
	}
	c, err := New(cfg)
	require.NoError(t, err)
	return c, sl, srv
}

// gqlRequest is a decoded GraphQL request body.
type gqlRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

func decodeGQL(t *testing.T, r *http.Request) gqlRequest {
	t.Helper()
	var in gqlRequest
	b, err := io.ReadAll(r.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &in))
	return in
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// queryDoc and mutationDoc are minimal GraphQL request bodies for transport tests.
const (
	queryBody    = `{"query":"query{viewer{login}}"}`
	mutationBody = `{"query":"mutation($input:ResolveReviewThreadInput!){resolveReviewThread(input: $input){thread{id}}}","variables":{"input":{"threadId":"T"}}}`
)
