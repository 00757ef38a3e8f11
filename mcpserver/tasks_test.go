package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTasksCancelReachesTheTasksCallWhenever: tasks/cancel ends the task's call whether it comes
// while the call runs or before the call registered; a call that ended is not touched.
func TestTasksCancelReachesTheTasksCallWhenever(t *testing.T) {
	tc := newTaskCalls()

	running, stop := context.WithCancel(t.Context())
	defer stop()
	tc.add("a", stop)
	tc.cancel("a")
	assert.Error(t, running.Err(), "cancelled while it runs")
	tc.remove("a") // the call's release

	tc.cancel("b")
	early, stopEarly := context.WithCancel(t.Context())
	defer stopEarly()
	tc.add("b", stopEarly)
	assert.Error(t, early.Err(), "cancelled before its call registered: ends at once")
	tc.remove("b")

	done, stopDone := context.WithCancel(t.Context())
	defer stopDone()
	tc.add("c", stopDone)
	tc.remove("c")
	tc.forget("c")
	tc.cancel("c")
	assert.NoError(t, done.Err(), "an ended call is not reached")
	tc.forget("c")
	assert.Empty(t, tc.early)
	assert.Empty(t, tc.cancels)
}

// TestOnlyATaskEscapesTheHostsBound: callDeadline, the one place that decides between a task and
// a bounded call.
func TestOnlyATaskEscapesTheHostsBound(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, MaxBlock: 2 * time.Second})
	require.NoError(t, err)
	ttl := int64(10 * 60 * 1000)
	for _, tc := range []struct {
		name  string
		task  *mcp.TaskParams
		mode  taskMode
		bound time.Duration
	}{
		{"a plain call: the bound", nil, plainCall, 2 * time.Second},
		{"a task with a time to live: a minute short of it", &mcp.TaskParams{TTL: &ttl}, legacyTask, 9 * time.Minute},
		{"a task without: no bound", &mcp.TaskParams{}, legacyTask, taskForever},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_monitor_next_step", Task: tc.task}}
			began := time.Now()
			deadline, mode := srv.callDeadline(t.Context(), req)
			assert.Equal(t, tc.mode, mode)
			assert.WithinDuration(t, began.Add(tc.bound), deadline, time.Second)
		})
	}
}
