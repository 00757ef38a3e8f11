package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// countingClaims counts how often each claim is given up.
type countingClaims struct {
	*monitor.MemoryState
	released atomic.Int32
}

func (c *countingClaims) Claim(id string) (func(), error) {
	release, err := c.MemoryState.Claim(id)
	if err != nil {
		return nil, err
	}
	return func() { c.released.Add(1); release() }, nil
}

// TestStoppingAndShuttingDownAtOnceGiveUpTheClaimOnce: pr_monitor_stop and the server's shutdown
// both give up a monitor's claim in the state directory. Run at once (CI runs the tests under
// -race), neither races the other or the record's last save, and the claim is given up once: a
// second release could drop the claim of the process that took the monitor over.
func TestStoppingAndShuttingDownAtOnceGiveUpTheClaimOnce(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	for range 50 {
		state := &countingClaims{MemoryState: monitor.NewMemoryState()}
		srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, State: state})
		require.NoError(t, err)
		_, _, err = srv.mons.Attach(ref)
		require.NoError(t, err)

		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			res, err := srv.handleStop(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: contract.ToolStop, Arguments: map[string]any{"monitor_id": ref.String()}}})
			assert.NoError(t, err)
			assert.False(t, res.IsError)
		}()
		go func() {
			defer wg.Done()
			<-start
			srv.Close()
		}()
		close(start)
		wg.Wait()

		assert.Equal(t, int32(1), state.released.Load(), "the claim is given up once")
		release, err := state.Claim(monitor.ID(ref.String()))
		require.NoError(t, err, "nobody holds the monitor any more")
		release()
	}
}

// spendRecorder keeps the watcher's saves of its spend.
type spendRecorder struct {
	mu    sync.Mutex
	saves []watch.Spend
}

func (r *spendRecorder) LoadSpend() (watch.Spend, bool, error) { return watch.Spend{}, false, nil }

func (r *spendRecorder) SaveSpend(sp watch.Spend) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.saves = append(r.saves, sp)
	return nil
}

func (r *spendRecorder) last() (watch.Spend, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.saves) == 0 {
		return watch.Spend{}, false
	}
	return r.saves[len(r.saves)-1], true
}

// TestShutdownReturnsOnceTheWatcherSavedWhatItSpent: a short session (fewer looks than the
// watcher's regular save needs) still saves its spend, before shutdown returns: the process may
// exit right after.
func TestShutdownReturnsOnceTheWatcherSavedWhatItSpent(t *testing.T) {
	spend := &spendRecorder{}
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.Watch.Spend = spend
		c.Watch.MinCycle, c.Watch.MaxCycle = time.Hour, time.Hour // one look, then none for an hour
	}})
	h.apply(githubfake.OpenPR{Title: "x"})
	h.start()
	w := h.srv.runningWatcher()
	require.NotNil(t, w)
	require.Eventually(t, func() bool { return w.Stats().PointsThisHour > 0 }, 10*time.Second, 5*time.Millisecond, "the watcher looked")
	_, saved := spend.last()
	require.False(t, saved, "no regular save yet")

	h.srv.Close()
	got, saved := spend.last()
	require.True(t, saved, "saved before Close returned")
	assert.Equal(t, w.Stats().PointsThisHour, got.Points)
}
