package monitorwf

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Histories recorded on the real server (PRMONITOR_RECORD_HISTORIES=1 go test -run OnTheRealServer)
// replay on today's code: a change that would make running monitors step differently (a new
// activity, a reordered timer, a decision that depends on map order or the wall clock) fails here,
// in every tier, before it reaches a deployment. Such a change needs workflow.GetVersion.
func TestRecordedMonitorHistoriesReplayOnTodaysWorkflowCode(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "recorded histories are checked in")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			r.RegisterWorkflowWithOptions(Monitor, workflow.RegisterOptions{Name: WorkflowName})
			require.NoError(t, r.ReplayWorkflowHistoryFromJSONFile(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)), f))
		})
	}
}
