package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
)

// The 2026-07-28 tasks extension's adapter, piece by piece; tests/tasks_ext_test.go drives it end
// to end over the built binary.

// TestA2026TaskWaitsWithoutBoundAndSaysWhenItsCallCarriesTheUsersAnswer: callDeadline gives a call
// in an extension task no bound and asks of the client (not of the agent); answeredInTask is true
// only for the call that resumes with tasks/update's answers.
func TestA2026TaskWaitsWithoutBoundAndSaysWhenItsCallCarriesTheUsersAnswer(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, MaxBlock: 2 * time.Second})
	require.NoError(t, err)
	task := &extTask{id: "t"}
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: contract.ToolNextStep}}
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		mode     taskMode
		bound    time.Duration
		answered bool
	}{
		{"a plain call", t.Context(), plainCall, 2 * time.Second, false},
		{"a task's first call", withExtTask(t.Context(), task, false), extensionTask, taskForever, false},
		{"a task's call resumed by tasks/update", withExtTask(t.Context(), task, true), extensionTask, taskForever, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			began := time.Now()
			deadline, mode := srv.callDeadline(tc.ctx, req)
			assert.Equal(t, tc.mode, mode)
			assert.WithinDuration(t, began.Add(tc.bound), deadline, time.Second)
			assert.Equal(t, tc.answered, answeredInTask(tc.ctx))
			c := &toolCall{mode: mode}
			assert.Equal(t, mode == plainCall, c.holdsWorker())
		})
	}
}

// TestATasksInputRequestKeysAreNeverReused: each round trip's requests get keys of their own
// (the extension forbids reusing one over a task's life); an answer to an earlier round's key, or
// to no key at all, is ignored; a partial answer keeps the task waiting.
func TestATasksInputRequestKeysAreNeverReused(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }})
	require.NoError(t, err)
	x := newTaskExt(srv, nil)
	task := &extTask{id: "t", status: extWorking, call: json.RawMessage(`{"name":"pr_monitor_next_step"}`)}
	asks := func(keys ...string) []byte {
		reqs := map[string]any{}
		for _, k := range keys {
			reqs[k] = map[string]any{"method": "elicitation/create", "params": map[string]any{"message": k}}
		}
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
			"resultType": "input_required", "inputRequests": reqs, "requestState": "sealed"}})
		require.NoError(t, err)
		return b
	}
	task.round = 1
	task.settle(asks("answer"), nil)
	first := task.snapshot()["inputRequests"].(map[string]json.RawMessage)
	require.Len(t, first, 1)
	var firstKey string
	for k := range first {
		firstKey = k
	}
	task.mu.Lock()
	task.status, task.requests, task.round = extWorking, nil, 2
	task.mu.Unlock()
	task.settle(asks("answer", "sample"), nil)
	second := task.snapshot()["inputRequests"].(map[string]json.RawMessage)
	require.Len(t, second, 2)
	assert.NotContains(t, second, firstKey, "a new round, new keys")

	x.update(task, map[string]json.RawMessage{firstKey: json.RawMessage(`{"action":"accept"}`), "nothing": json.RawMessage(`{}`)})
	assert.Equal(t, extInputRequired, task.snapshot()["status"], "answers to no outstanding request change nothing")
	x.update(task, map[string]json.RawMessage{"2.answer": json.RawMessage(`{"action":"accept"}`)})
	snap := task.snapshot()
	assert.Equal(t, extInputRequired, snap["status"], "half answered: it waits for the rest")
	assert.Len(t, snap["inputRequests"], 1)
}

// TestATasksCallRetriesWithItsAnswersAndNoProgressToken: the retry a tasks/update makes is the
// call a multi-round-trip client would make (inputResponses by the call's own keys, the sealed
// request state), and a task's call carries no progress token (the extension reports a task's
// state in tasks/get, not in progress notifications).
func TestATasksCallRetriesWithItsAnswersAndNoProgressToken(t *testing.T) {
	call := withoutProgress(json.RawMessage(`{"name":"pr_monitor_next_step","arguments":{"event":"ready"},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`))
	assert.NotContains(t, string(call), "progressToken")
	assert.Contains(t, string(call), "2026-07-28")
	retry, err := retryParams(call, map[string]json.RawMessage{"answer": json.RawMessage(`{"action":"accept","content":{"choice":"merge"}}`)}, "sealed")
	require.NoError(t, err)
	var p mcp.CallToolParams
	require.NoError(t, json.Unmarshal(retry, &p))
	assert.Equal(t, "sealed", p.RequestState)
	require.Contains(t, p.InputResponses, "answer")
	assert.Equal(t, contract.ToolNextStep, p.Name)
}

// TestAWorkingTaskSaysWhatItsCallSays: a call that runs in a 2026-07-28 task gives the task its
// progress line, which tasks/get shows while the task works; a call without one leaves the
// task's own message.
func TestAWorkingTaskSaysWhatItsCallSays(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, ProgressEvery: time.Hour})
	require.NoError(t, err)
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: contract.ToolNextStep}}
	begin := func(ctx context.Context) (context.Context, func()) { return ctx, func() {} }

	task := &extTask{id: "t", status: extWorking, message: "Working."}
	_, end := srv.beginCall(withExtTask(t.Context(), task, false), req, begin, func() string { return "watching acme/widgets#7" })
	assert.Equal(t, "watching acme/widgets#7", task.snapshot()["statusMessage"])
	end()

	quiet := &extTask{id: "q", status: extWorking, message: "Working."}
	_, end = srv.beginCall(withExtTask(t.Context(), quiet, false), req, begin, nil)
	assert.Equal(t, "Working.", quiet.snapshot()["statusMessage"])
	end()
}
