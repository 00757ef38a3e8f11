package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

// TestOnlyAWatchingMonitorTakesPolls: while a question waits for the user, a task runs, GitHub
// work is pending or the monitor has stopped, a poll that shows something new (a conflict, a
// failing check, a new comment) changes nothing: the pending action comes back and the position
// is exactly as it was.
func TestOnlyAWatchingMonitorTakesPolls(t *testing.T) {
	busy := newPR().conflict().failing().thread("T9", "eve", "z.go", 9, "and this?")
	tests := []struct {
		name  string
		reach func(*testing.T) *drv
		state State
	}{
		{name: "awaiting the user", state: StateAwaitingUser, reach: func(t *testing.T) *drv {
			d := start(t)
			requireAsk(t, d.poll(newPR().conflict()), elicitation.QMergeConflict)
			return d
		}},
		{name: "executing a task", state: StateExecutingTask, reach: func(t *testing.T) *drv {
			d := start(t)
			requireExecute(t, d.poll(newPR().thread("T1", "bob", "a.go", 1, "x")), TaskExplainComment)
			return d
		}},
		{name: "GitHub work pending", state: StateExecutingTask, reach: func(t *testing.T) *drv {
			d := start(t)
			requireServer(t, d.poll(newPR().failing()), ServerFetchCILogs)
			return d
		}},
		{name: "stopped", state: StateStopped, reach: func(t *testing.T) *drv {
			d := start(t)
			requireAsk(t, d.poll(newPR().conflict()), elicitation.QMergeConflict)
			require.Equal(t, ActionStop, d.choose(elicitation.Stop).Kind)
			return d
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.reach(t)
			require.Equal(t, tt.state, d.m.Position().Node.State())
			before := mustJSON(t, d.m.Position())
			pending := d.m.Pending()
			act := d.poll(busy)
			assert.Equal(t, mustJSON(t, pending), mustJSON(t, act), "the pending action, unchanged")
			assert.JSONEq(t, before, mustJSON(t, d.m.Position()), "the position is untouched")
		})
	}
}
