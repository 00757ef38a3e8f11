package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/statemachine"
)

// TestAStatusOfMoreMonitorsThanFitStaysWithinThePayloadBound: the listing is cut to leave room for
// the watcher's line, so the whole answer (listing, watcher, quiet hours) stays within
// contract.MaxPayload, not the listing alone. The watcher's line says what the watcher knows.
func TestAStatusOfMoreMonitorsThanFitStaysWithinThePayloadBound(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	state := monitor.NewMemoryState()
	for n := 100; n < 400; n++ {
		ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: n}
		id := monitor.ID(ref.String())
		rec := store.Record{Ref: ref, Position: statemachine.New(statemachine.DefaultConfig(), statemachine.Monitor{ID: id, Ref: ref}).Position()}
		require.NoError(t, state.Save(id, rec))
	}
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.State = state }})
	h.apply(githubfake.OpenPR{Title: "x"})
	h.start() // one monitor watched: the watcher has its line
	raw, errText := h.call("pr_monitor_status", map[string]any{})
	require.Empty(t, errText)
	assert.Contains(t, string(raw), `"watcher":`)
	assert.Contains(t, string(raw), "omitted", "more monitors than fit")
	assert.LessOrEqual(t, len(raw), contract.MaxPayload, fmt.Sprintf("%d bytes", len(raw)))

	// The watcher's line in the watcher's own figures: the limit GitHub gave (the fake's, far
	// above the default), the budget's share of it, a sub-second cycle in milliseconds.
	var out contract.StatusOutput
	require.NoError(t, json.Unmarshal(raw, &out))
	require.NotNil(t, out.Watcher)
	assert.Equal(t, 1<<30, out.Watcher.Limit)
	assert.Greater(t, out.Watcher.BudgetPoints, out.Watcher.Limit/100, "the budget is a share of the limit GitHub gave, not of the default")
	assert.True(t, strings.HasSuffix(out.Watcher.Cycle, "ms"), "a sub-second cycle in milliseconds: %q", out.Watcher.Cycle)
}
