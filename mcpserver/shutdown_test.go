package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// countingClaims counts how often each claim is given up.
type countingClaims struct {
	*MemoryState
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
		state := &countingClaims{MemoryState: NewMemoryState()}
		srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, State: state})
		require.NoError(t, err)
		_, _, err = srv.attach(ref)
		require.NoError(t, err)

		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			res, err := srv.handleStop(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: ToolStop, Arguments: map[string]any{"monitor_id": ref.String()}}})
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
		release, err := state.Claim(monitorID(ref.String()))
		require.NoError(t, err, "nobody holds the monitor any more")
		release()
	}
}
