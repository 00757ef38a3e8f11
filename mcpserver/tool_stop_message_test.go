package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// TestStopSaysWhatItStopped: the message names the monitors stopped, or says that none was.
func TestStopSaysWhatItStopped(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	stop := func() contract.StopOutput {
		raw, errText := h.call("pr_monitor_stop", map[string]any{"monitor_id": "all"})
		require.Empty(t, errText)
		var out contract.StopOutput
		require.NoError(t, json.Unmarshal(raw, &out))
		return out
	}
	assert.Equal(t, "Nothing was being monitored.", stop().Message)

	h.apply(githubfake.OpenPR{Title: "x"})
	h.start()
	out := stop()
	assert.Equal(t, []string{"acme/widgets#7"}, out.Stopped)
	assert.Equal(t, "Stopped monitoring acme/widgets#7.", out.Message)
}
