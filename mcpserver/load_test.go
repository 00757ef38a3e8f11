package mcpserver

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// thousand opens n quiet pull requests on the fake and monitors them all in the server (as
// pr_monitor_start_all would, without its search's 300 cap), then waits until the watcher has a
// snapshot of each. It returns the heap the monitors and the watcher's state added.
func thousand(tb testing.TB, h *harness, n int) uint64 {
	tb.Helper()
	for i := 1; i <= n; i++ {
		require.NoError(tb, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: fmt.Sprintf("r%d", i%10), Number: i}, githubfake.OpenPR{Title: "quiet"}))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 1; i <= n; i++ {
		m, _, err := h.srv.mons.Attach(prstatus.PRRef{Owner: "acme", Repo: fmt.Sprintf("r%d", i%10), Number: i})
		require.NoError(tb, err)
		h.srv.watchMonitor(m)
	}
	require.Eventually(tb, func() bool {
		w := h.srv.runningWatcher()
		got := 0
		for _, m := range h.srv.mons.ByID() {
			if u, ok := w.Latest(m.Ref); ok && u.Snapshot != nil {
				got++
			}
		}
		return got == n
	}, 2*time.Minute, 50*time.Millisecond, "the watcher reads every pull request")
	runtime.GC()
	runtime.ReadMemStats(&after)
	return after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
}

// TestAThousandMonitorsAreAllWatched is the load test: 1,000 monitors in one server, every one
// watched, and status answering within its bound. It logs the memory they take.
func TestAThousandMonitorsAreAllWatched(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: runs without -short")
	}
	// The watcher looks every 100-500 ms, not every few: a thousand pull requests read every 5 ms
	// starve the status call of the cores under -race on a loaded machine (its 20 s ran out once).
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.Watch.MinCycle, c.Watch.MaxCycle = 100*time.Millisecond, 500*time.Millisecond
	}})
	heap := thousand(t, h, 1000)
	t.Logf("1,000 monitors with their snapshots: %d KiB of heap (%d bytes a monitor)", heap>>10, heap/1000)
	require.Equal(t, 1000, h.srv.runningWatcher().Stats().PRs)
	raw, errText := h.call("pr_monitor_status", map[string]any{})
	require.Empty(t, errText)
	require.LessOrEqual(t, len(raw), contract.MaxPayload+1<<10)
}

// BenchmarkStatusAndStopWhileCallsBlock: 1,000 monitors, as many next_step calls blocked as the
// server lets wait; one op is a pr_monitor_status and a pr_monitor_stop over MCP. The target is
// under 200 ms an op (-benchtime=1x is enough to see it).
func BenchmarkStatusAndStopWhileCallsBlock(b *testing.B) {
	h := newHarness(b, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = time.Minute }})
	heap := thousand(b, h, 1000)
	ms := h.srv.mons.ByID()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range waiters(h.srv.cfg.Workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = h.session.CallTool(ctx, &sdk.CallToolParams{Name: "pr_monitor_next_step",
				Arguments: map[string]any{"monitor_id": ms[i].ID, "event": "ready"}})
		}()
	}
	require.Eventually(b, func() bool { return len(h.srv.waiting.ch) == waiters(h.srv.cfg.Workers) }, time.Minute, 10*time.Millisecond)
	b.ResetTimer()
	i := len(ms) - 1
	for b.Loop() {
		if _, errText := h.call("pr_monitor_status", map[string]any{}); errText != "" {
			b.Fatal(errText)
		}
		if _, errText := h.call("pr_monitor_stop", map[string]any{"monitor_id": ms[i].ID}); errText != "" {
			b.Fatal(errText)
		}
		i--
	}
	b.StopTimer()
	b.ReportMetric(float64(heap)/1000, "heap-B/monitor")
	cancel()
	wg.Wait()
}
