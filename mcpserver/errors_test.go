package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestBadInputIsAToolErrorAndChangesNothing(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "ask_user", act.Action)
	live, ok := h.srv.mons.Live("acme/widgets#7")
	require.True(t, ok)
	before := live.Position()

	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"unknown monitor", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/other#1", "event": "ready"}, "unknown monitor"},
		{"unknown event", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "finished"}, "event"},
		{"choice not offered", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge"}, "choice not offered"},
		{"choice without user_chose", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready", "choice": "rebase"}, "user_chose only"},
		{"user_chose without choice", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose"}, "needs choice"},
		{"data is a string", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready", "data": "{\"reply_text\":\"x\"}"}, "data"},
		{"data has an unknown field", "pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready", "data": map[string]any{"replytext": "x"}}, "replytext"},
		{"malformed PR reference", "pr_monitor_start", map[string]any{"pr": "not a pr"}, "malformed pull request reference"},
		{"no such PR", "pr_monitor_start", map[string]any{"pr": "acme/widgets#99"}, "404"},
		{"stop needs an id", "pr_monitor_stop", map[string]any{}, `missing required field "monitor_id"`}, // the schema requires it
		{"status of an unknown monitor", "pr_monitor_status", map[string]any{"monitor_id": "x/y#1"}, "unknown monitor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errText := h.call(tt.tool, tt.args)
			require.NotEmpty(t, errText, "want an isError result")
			assert.Contains(t, errText, tt.want)
			assert.NotContains(t, errText, "\n", "one line")
			assert.NotContains(t, errText, testToken)
		})
	}
	after := live.Position()
	assert.Equal(t, mustJSON(t, before), mustJSON(t, after), "no bad input moves the monitor")
}

func TestGitHubAuthFailuresAreToolErrors(t *testing.T) {
	tests := []struct {
		name    string
		connect func(url string) Connect
		want    string
	}{
		{"wrong token (401)", func(url string) Connect {
			return func(context.Context) (GitHub, error) {
				return ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken("ghp_wrong"), Version: "test"})
			}
		}, "rejected the token"},
		{"no token at all", func(string) Connect {
			return func(ctx context.Context) (GitHub, error) {
				_, err := ghclient.ResolveToken(ctx, func(string) string { return "" }, "", func(context.Context, string, ...string) ([]byte, error) {
					return nil, errors.New(`exec: "gh": executable file not found in $PATH`)
				})
				return nil, err
			}
		}, "no GitHub token found: set GITHUB_TOKEN or GH_TOKEN, or sign in with `gh auth login` (GITHUB_TOKEN and GH_TOKEN are empty; " +
			"`gh auth token --hostname github.com` failed: exec: \"gh\": executable file not found in $PATH)"},
		{"no client", func(string) Connect { return func(context.Context) (GitHub, error) { return nil, nil } }, "no GitHub client"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: "2025-11-25"})
			h.apply(githubfake.OpenPR{Title: "x"})
			h.srv.cfg.Connect = tt.connect(h.fake.URL())
			_, errText := h.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
			assert.Contains(t, errText, tt.want)
			assert.NotContains(t, errText, testToken)
			assert.Equal(t, 1, strings.Count(errText, "GitHub token")+strings.Count(errText, "rejected the token")+strings.Count(errText, "no GitHub client"),
				"the cause is said once: %s", errText)
			assert.LessOrEqual(t, parenDepth(errText), 1, "no parentheses within parentheses: %s", errText)
			assert.Empty(t, h.srv.mons.ByID(), "no monitor without GitHub")
		})
	}
}

func TestForgedOrStaleRequestStateIsRejected(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	h.next("ready", "", nil)
	call := func(state string) string {
		params := &sdk.CallToolParams{Name: "pr_monitor_next_step", Arguments: map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"},
			RequestState: state, InputResponses: sdk.InputResponseMap{"answer": &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": "rebase"}}}}
		res, err := h.session.CallTool(context.Background(), params)
		require.NoError(t, err)
		require.True(t, res.IsError)
		return res.Content[0].(*sdk.TextContent).Text
	}
	assert.Contains(t, call("forged-state"), "stale or forged")
	// A genuine state for a question that is no longer open.
	token, err := h.srv.seal.Seal(driver.RequestState{Monitor: "acme/widgets#7", Kind: driver.InputElicit, Seq: 99})
	require.NoError(t, err)
	assert.Contains(t, call(token), "no longer open")
	// A genuine state for another monitor.
	token, err = h.srv.seal.Seal(driver.RequestState{Monitor: "acme/other#1", Kind: driver.InputElicit, Seq: 1})
	require.NoError(t, err)
	assert.Contains(t, call(token), "another monitor")
}

func TestASecondNextStepSupersedesTheFirst(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 5 * time.Second }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	h.start()
	m, ok := h.srv.mons.Live(h.ref.String())
	require.True(t, ok)
	firstDone := make(chan contract.ActionOutput, 1)
	go func() { firstDone <- h.next("ready", "", nil) }()
	require.Eventually(t, m.IsDriven, 5*time.Second, time.Millisecond, "the first call waits")
	secondDone := make(chan contract.ActionOutput, 1)
	go func() { secondDone <- h.next("ready", "", nil) }()
	var first contract.ActionOutput
	select {
	case first = <-firstDone: // the second call took over: the first returns before anything changed
	case <-time.After(5 * time.Second):
		t.Fatal("the first call was not superseded")
	}
	assert.Contains(t, first.Message, "superseded")
	h.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.MergeConflict{})
	second := <-secondDone
	assert.Equal(t, "ask_user", second.Action, "the second call is the one that gets the news")
}

// TestAWaitingCallSendsNoRequestOfItsOwn: polls are the watcher's. While nothing changes, a
// waiting call costs only the watcher's fingerprint requests (1 point each, by GitHub's formula),
// no snapshot; a change reaches the call as one snapshot. (Before the watcher, every poll was one
// snapshot request: this test replaces TestOneGraphQLRequestPerPoll.)
func TestAWaitingCallSendsNoRequestOfItsOwn(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.MaxBlock = 400 * time.Millisecond
		c.Watch.HotRefresh, c.Watch.SafetyRefresh = time.Hour, time.Hour
	}})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	h.fake.ResetRecording()
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "polling", act.Action)
	snapshots, fingerprints := requestKinds(h.fake)
	assert.Equal(t, 1, snapshots, "pr_monitor_start's snapshot serves the first poll; nothing changed since")
	assert.Positive(t, fingerprints, "the watcher looked")
	assert.Zero(t, h.fake.RESTCalls())

	h.srv.cfg.MaxBlock = 10 * time.Second
	h.fake.ResetRecording()
	go func() {
		m, _ := h.srv.mons.Live(h.ref.String())
		poll(func() bool { return driven(m) }) // the call waits first
		h.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.MergeConflict{})
	}()
	act = h.next("ready", "", nil)
	require.Equal(t, "ask_user", act.Action, act.Message)
	snapshots, _ = requestKinds(h.fake)
	assert.Equal(t, 1, snapshots, "one snapshot for the change")
}

// requestKinds counts the snapshot and fingerprint queries GitHub received, and checks that each
// fingerprint request cost 1 point.
func requestKinds(f *githubfake.Fake) (snapshots, fingerprints int) {
	for _, r := range f.Requests() {
		switch {
		case r.Kind != githubfake.KindGraphQL || r.Operation != githubfake.OpQuery:
		case strings.Contains(r.Document, "fragment fp on PullRequest"):
			fingerprints++
		case strings.Contains(r.Document, "reviewThreads("):
			snapshots++
		}
	}
	return snapshots, fingerprints
}

func TestStatusStopAndResume(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.MergeConflict{})
	h.start()
	act := h.next("ready", "", nil)
	require.Equal(t, "ask_user", act.Action)

	raw, errText := h.call("pr_monitor_status", map[string]any{})
	require.Empty(t, errText)
	var st contract.StatusOutput
	require.NoError(t, json.Unmarshal(raw, &st))
	require.Len(t, st.Monitors, 1)
	assert.Equal(t, "awaiting_user", st.Monitors[0].State)
	assert.Equal(t, "merge_conflict", st.Monitors[0].Attention)
	require.NotNil(t, st.Monitors[0].Pending)
	assert.Equal(t, "merge_conflict", string(st.Monitors[0].Pending.Question.ID))

	// Starting again resumes at the same question.
	out := h.start()
	assert.True(t, out.Resumed)
	require.NotNil(t, out.Pending)
	assert.Equal(t, "merge_conflict", string(out.Pending.Question.ID))

	raw, errText = h.call("pr_monitor_stop", map[string]any{"monitor_id": "all"})
	require.Empty(t, errText)
	var stop contract.StopOutput
	require.NoError(t, json.Unmarshal(raw, &stop))
	assert.Equal(t, []string{"acme/widgets#7"}, stop.Stopped)
	act = h.next("ready", "", nil)
	assert.Equal(t, "stop", act.Action, "a stopped monitor stays stopped")
	assert.False(t, h.start().Resumed, "a new start after stop begins afresh")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func TestACancelledCallReturnsAndLeavesTheMonitorIntact(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = time.Minute }})
	h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	h.start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := h.session.CallTool(ctx, &sdk.CallToolParams{Name: "pr_monitor_next_step",
			Arguments: map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"}})
		done <- err
	}()
	require.Eventually(t, func() bool { m, _ := h.srv.mons.Live("acme/widgets#7"); return driven(m) }, 5*time.Second, time.Millisecond, "the call waits")
	cancel()
	select {
	case err := <-done:
		require.Error(t, err, "the client gave up")
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	// The server honoured the cancellation: the monitor is free and answers at once.
	require.Eventually(t, func() bool {
		m, _ := h.srv.mons.Live("acme/widgets#7")
		return !driven(m)
	}, 5*time.Second, 10*time.Millisecond, "the blocked call ended on the server too")
	h.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.MergeConflict{})
	act := h.next("ready", "", nil)
	assert.Equal(t, "ask_user", act.Action)
}

// driven reports whether a tool call drives m.
func driven(m *monitor.Monitor) bool { return m.IsDriven() }

// parenDepth is how deeply s nests parentheses.
func parenDepth(s string) int {
	depth, most := 0, 0
	for _, r := range s {
		switch r {
		case '(':
			depth++
			most = max(most, depth)
		case ')':
			depth--
		}
	}
	return most
}
