package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// openMonitors starts n monitors on n pull requests, each left waiting on someone: a merge
// conflict question, a failing check to investigate (with its log), a review comment.
func openMonitors(t *testing.T, h *harness, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 100 + i}
		events := []githubfake.Event{githubfake.OpenPR{Title: fmt.Sprintf("Add retries to the widget client, part %d", i)}}
		switch i % 3 {
		case 0:
			events = append(events, githubfake.MergeConflict{})
		case 1:
			events = append(events, githubfake.ChecksQueued{Jobs: []string{"test"}},
				githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestRetry (1.00s)\n    retry_test.go:12: want 3 attempts, got 1\nFAIL"})
		case 2:
			events = append(events, githubfake.CommentReview(githubfake.User("bob"), "",
				githubfake.NewThread{Path: "retry.go", Line: 12, Body: "Use exponential backoff here, not a fixed sleep."}))
		}
		require.NoError(t, h.fake.Apply(githubfake.Ref(ref), events...))
		_, errText := h.call("pr_monitor_start", map[string]any{"pr": ref.String()})
		require.Empty(t, errText)
		_, errText = h.call("pr_monitor_next_step", map[string]any{"monitor_id": ref.String(), "event": "ready"})
		require.Empty(t, errText)
	}
}

// saveMonitors adds monitors 101+from..100+n as an earlier server would have saved them: each a
// copy of one of the first three live monitors' records (a conflict question, a CI task, a
// comment task) under its own pull request.
func saveMonitors(t *testing.T, h *harness, from, n int) {
	t.Helper()
	var models []store.Record
	for i := 1; i <= 3; i++ {
		rec, ok, err := h.state.Peek(fmt.Sprintf("acme/widgets#%d", 100+i))
		require.NoError(t, err)
		require.True(t, ok)
		models = append(models, rec)
	}
	for i := from + 1; i <= n; i++ {
		rec := models[(i-1)%3]
		ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 100 + i}
		rec.Ref, rec.Position.Monitor.ID, rec.Position.Monitor.Ref = ref, ref.String(), ref
		rec.Position.Monitor.Title = fmt.Sprintf("Add retries to the widget client, part %d", i)
		require.NoError(t, h.state.Save(ref.String(), rec))
	}
}

// text calls a tool and returns its text content: what a model that reads only text reads.
func (h *harness) text(name string, args map[string]any) string {
	h.t.Helper()
	res, err := h.session.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	require.NoError(h.t, err)
	require.False(h.t, res.IsError)
	require.Len(h.t, res.Content, 1)
	return res.Content[0].(*sdk.TextContent).Text
}

// TestContractSize measures what the agent's context pays for: the tools/list result as it goes
// over the pipe, and pr_monitor_status over many monitors (1,000: 30 live, the rest saved by an
// earlier server, which a listing shows alike).
func TestContractSize(t *testing.T) {
	for _, tc := range []struct {
		dispatch bool
		tools    int
		bound    int
	}{{false, 5, contract.MaxToolsList}, {true, 6, contract.MaxToolsListDispatch}} {
		t.Run(fmt.Sprintf("tools/list, dispatch %v", tc.dispatch), func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: "2025-11-25", wire: true, cfg: func(c *Config) { c.Dispatch = tc.dispatch }})
			res, err := h.session.ListTools(context.Background(), nil)
			require.NoError(t, err)
			require.Len(t, res.Tools, tc.tools)
			line := h.wireLine(`"tools":[`)
			require.NotNil(t, line)
			t.Logf("tools/list (dispatch %v): %d bytes", tc.dispatch, len(line))
			assert.LessOrEqual(t, len(line), tc.bound)
		})
	}
	for _, n := range []int{26, 1000} {
		t.Run(fmt.Sprintf("status of %d monitors", n), func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
			live := min(n, 30)
			openMonitors(t, h, live)
			saveMonitors(t, h, live, n)
			text := h.text("pr_monitor_status", map[string]any{})
			var st contract.StatusOutput
			require.NoError(t, json.Unmarshal([]byte(text), &st))
			t.Logf("status of %d monitors: %d bytes, %d listed, %d omitted", n, len(text), len(st.Monitors), st.Omitted)
			assert.LessOrEqual(t, len(text), contract.MaxPayload)
			assert.Equal(t, n, len(st.Monitors)+st.Omitted, "every monitor is listed or counted")
			if n == 26 {
				assert.Zero(t, st.Omitted, "26 monitors fit")
			}
			for _, m := range st.Monitors {
				require.NotNil(t, m.Pending, "%s waits on someone", m.MonitorID)
				assert.Nil(t, m.Detail, "a listing has no detail")
				assert.Empty(t, m.Pending.Context, "a listing's pending is cut to its kind, task and question")
			}

			one := h.text("pr_monitor_status", map[string]any{"monitor_id": st.Monitors[0].MonitorID})
			require.NoError(t, json.Unmarshal([]byte(one), &st))
			require.Len(t, st.Monitors, 1)
			require.NotNil(t, st.Monitors[0].Detail, "one monitor asked by id comes with its detail")
			t.Logf("status of one monitor: %d bytes", len(one))
			assert.LessOrEqual(t, len(one), contract.MaxPayload)
		})
	}
}
