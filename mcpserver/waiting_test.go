package mcpserver

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// graphQLQueries counts the GraphQL queries GitHub received.
func graphQLQueries(f *githubfake.Fake) int {
	n := 0
	for _, r := range f.Requests() {
		if r.Kind == githubfake.KindGraphQL && r.Operation == githubfake.OpQuery {
			n++
		}
	}
	return n
}

// TestNextStepEndsWithPollingByItsDeadlineWhateverGitHubDoes: a secondary limit without
// Retry-After (GitHub: wait a minute), a 200 carrying RATE_LIMITED, and a request that hangs must
// not hold a call past its deadline: it ends with polling, and the wait continues in the next call.
func TestNextStepEndsWithPollingByItsDeadlineWhateverGitHubDoes(t *testing.T) {
	tests := []struct {
		name  string
		fault githubfake.Fault
	}{
		{"403 secondary limit without Retry-After", githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: http.StatusForbidden}},
		{"200 with errors RATE_LIMITED", githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeRateLimited}},
		{"a request that hangs", githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Delay: time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each waits out its deadlines on its own server
			h := newHarness(t, harnessOpts{protocol: "2025-11-25", cfg: func(c *Config) { c.MaxBlock = 500 * time.Millisecond }})
			h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
			h.start()
			h.fake.InjectFault(tt.fault)
			for range 2 {
				start := time.Now()
				act := h.next("ready", "", nil)
				assert.Equal(t, "polling", act.Action, act.Message)
				assert.Less(t, time.Since(start), 10*time.Second, "a 500ms call, not GitHub's minute")
			}
		})
	}
}

// TestGitHubWorkCutByTheDeadlineStaysPendingAndIsDoneOnce: the reply the user chose hangs on
// GitHub's side; the call ends with polling at its deadline, the machine is not told it failed,
// and the next call posts the reply once and resolves the thread.
func TestGitHubWorkCutByTheDeadlineStaysPendingAndIsDoneOnce(t *testing.T) {
	t.Parallel() // waits out deadlines: beside the other tests
	// The bound leaves the call time to reach the reply's request on a loaded machine under -race
	// (700 ms did not, once): the request must be in flight when the deadline cuts it.
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 2 * time.Second }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		githubfake.CommentReview(githubfake.User("bot[bot]"), "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "Rename this."}))
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "explain_comment", act.Task)
	act = h.next("task_complete", "", map[string]any{"recommendation": "rename"})
	require.Equal(t, "ask_user", act.Action)
	act = h.next("user_chose", "apply_recommendation", nil)
	require.Equal(t, "apply_recommendation", act.Task)

	hang := h.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/pulls/*/comments/*/replies"), Delay: time.Minute})
	start := time.Now()
	act = h.next("comment_addressed", "", map[string]any{"reply_text": "Renamed."})
	assert.Less(t, time.Since(start), 10*time.Second)
	require.Equal(t, "polling", act.Action, "the call ends at its deadline")
	assert.Contains(t, act.Message, "continues in the next call")
	require.Equal(t, 1, hang.Hits())
	hang.Remove()

	act = h.next("ready", "", nil)
	assert.NotEqual(t, "ask_user", act.Action, "a cut is not a failure to ask about: %s", act.Message)
	replies := 0
	require.NoError(t, h.fake.View(githubfake.Ref(h.ref), func(pr *githubfake.PullRequest) {
		replies = len(pr.Threads[0].Comments) - 1
		assert.True(t, pr.Threads[0].IsResolved, "a bot's thread is resolved after the reply")
	}))
	assert.Equal(t, 1, replies, "posted once")
}

// TestRetryAfterIsHonouredAcrossCalls: GitHub answers 429 with Retry-After: 3600. No request goes
// out before that hour, in this call or the next ones; each call ends with polling at its
// deadline and says until when.
func TestRetryAfterIsHonouredAcrossCalls(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 150 * time.Millisecond }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	h.start()
	h.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: http.StatusTooManyRequests, RetryAfter: time.Hour})
	before := graphQLQueries(h.fake)
	// The watcher sends its next request at its own pace: calls end with polling until then.
	deadline := time.Now().Add(20 * time.Second)
	for graphQLQueries(h.fake) == before && time.Now().Before(deadline) {
		require.Equal(t, "polling", h.next("ready", "", nil).Action)
	}
	for range 4 {
		act := h.next("ready", "", nil)
		require.Equal(t, "polling", act.Action)
		assert.Contains(t, act.Message, "nothing is sent before")
	}
	// The watcher may have had a look under way as the fault went in (answered as usual): what
	// counts is that one query met the 429 and none followed it.
	var after []githubfake.Request
	for _, r := range h.fake.Requests() {
		if r.Kind == githubfake.KindGraphQL && r.Operation == githubfake.OpQuery {
			after = append(after, r)
		}
	}
	after = after[before:]
	met := slices.IndexFunc(after, func(r githubfake.Request) bool { return r.Status == http.StatusTooManyRequests })
	require.GreaterOrEqual(t, met, 0, "a query met the 429")
	assert.Len(t, after[met:], 1, "one query met the 429; none followed within the hour")
	h.mu.Lock()
	defer h.mu.Unlock()
	require.NotEmpty(t, h.progress)
	assert.Contains(t, h.progress[len(h.progress)-1], "GitHub rate limit")
}

// TestProgressGoesOutOnItsOwnClockWhateverThePollInterval: with the harness's watcher looking far
// more often than the progress period (milliseconds), progress still goes out every period of a
// blocked call.
func TestProgressGoesOutOnItsOwnClockWhateverThePollInterval(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.MaxBlock = 600 * time.Millisecond
		c.ProgressEvery = 100 * time.Millisecond
	}})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "polling", act.Action)
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.GreaterOrEqual(t, len(h.progress), 3, "about one every 100ms of a 600ms call")
}

// TestGitHubFailuresReachTheWaitingCall: the watcher reads GitHub for the waiting call, and what
// it meets reaches the call as before: a refused token ends it with a tool error, an outage is
// reported as progress while the call goes on waiting.
//
// Not parallel: mcp-go's stdio server keeps one session for the whole process
// (stdioSessionInstance), so while two harnesses serve at once every progress notification goes
// to the client that started last, and this test counts its notes.
func TestGitHubFailuresReachTheWaitingCall(t *testing.T) {
	t.Run("a revoked token is a tool error", func(t *testing.T) {
		h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
		h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
		h.start()
		h.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: http.StatusUnauthorized})
		_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
		assert.Contains(t, errText, "token")
		assert.NotContains(t, errText, testToken)
	})
	t.Run("an outage is progress, and the call waits on", func(t *testing.T) {
		var h *harness
		h = newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
			c.MaxBlock = time.Second
			c.ProgressEvery = 100 * time.Millisecond            // no flood: a full notification queue drops notes
			c.Connect = func(context.Context) (GitHub, error) { // a client that gives up at once
				return ghclient.New(ghclient.Config{RESTURL: h.fake.URL(), GraphQLURL: h.fake.URL() + "/graphql", Token: ghclient.NewToken(testToken),
					Version: "test", Retry: ghclient.RetryPolicy{MaxAttempts: 1, MaxRateLimitWait: time.Second}})
			}
		}})
		h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
		h.start()
		h.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: http.StatusBadGateway})
		act := h.next("ready", "", nil)
		assert.Equal(t, "polling", act.Action)
		h.mu.Lock()
		defer h.mu.Unlock()
		found := false
		for _, p := range h.progress {
			found = found || strings.Contains(p, "GitHub is unavailable: HTTP 502") && strings.HasSuffix(p, "; retrying")
			assert.LessOrEqual(t, strings.Count(p, "GitHub is un"), 1, "said once: %s", p)
		}
		assert.True(t, found, "progress says GitHub is unavailable, once (%d notes)", len(h.progress))
	})
}
