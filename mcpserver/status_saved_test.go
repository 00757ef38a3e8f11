package mcpserver

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/statemachine"
)

// A monitor an older build saved (position version 1) shows in pr_monitor_status where this build
// places it, with its pending task.
func TestStatusPlacesAMonitorAnOlderBuildSaved(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	raw, err := os.ReadFile("../statemachine/testdata/positions-v1/conflict_rebase.json")
	require.NoError(t, err)
	var c struct {
		Position statemachine.Position `json:"position"`
	}
	require.NoError(t, json.Unmarshal(raw, &c))
	require.Equal(t, 1, c.Position.Version)

	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	require.NoError(t, h.state.Save("acme/widgets#7", store.Record{Ref: h.ref, Position: c.Position}))
	out, errText := h.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"})
	require.Empty(t, errText)
	var st contract.StatusOutput
	require.NoError(t, json.Unmarshal(out, &st))
	require.Len(t, st.Monitors, 1)
	m := st.Monitors[0]
	assert.True(t, m.Saved)
	assert.Equal(t, string(statemachine.StateExecutingTask), m.State)
	require.NotNil(t, m.Detail, "one monitor asked for by id comes with its detail")
	assert.Equal(t, string(statemachine.NodeConflictRebasing), m.Detail.Node)
	assert.Equal(t, string(statemachine.FlowConflict), m.Detail.Flow)
	require.NotNil(t, m.Pending)
	assert.Equal(t, "rebase", m.Pending.Task)
}
