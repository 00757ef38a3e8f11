package tests

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// MCP tasks in the 2026-07-28 revision (the io.modelcontextprotocol/tasks extension, SEP-2663),
// end to end: the built binary over stdio and rawClient, a minimal client written here, since no
// SDK of this module speaks the extension.

// extCaps are a 2026-07-28 client's capabilities: form elicitation and, unless without, the
// tasks extension.
func extCaps(withTasks bool) map[string]any {
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	if withTasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	return caps
}

// extTask is what tasks/get answers.
type extTask struct {
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests"`
	Result         json.RawMessage            `json:"result"`
	Error          json.RawMessage            `json:"error"`
}

// callNext sends pr_monitor_next_step as a 2026-07-28 request.
func (c *rawClient) callNext(caps map[string]any, args map[string]any) rawMessage {
	return c.call("tools/call", map[string]any{"name": "pr_monitor_next_step", "arguments": args, "_meta": modernMeta(caps)})
}

// startModern calls pr_monitor_start as a 2026-07-28 request.
func (c *rawClient) startModern(caps map[string]any, pr string) contract.StartOutput {
	c.t.Helper()
	var started contract.StartOutput
	c.tool(c.call("tools/call", map[string]any{"name": "pr_monitor_start", "arguments": map[string]any{"pr": pr}, "_meta": modernMeta(caps)}), &started)
	return started
}

func (c *rawClient) taskGet(id string) extTask {
	c.t.Helper()
	res := c.call("tasks/get", map[string]any{"taskId": id, "_meta": modernMeta(extCaps(true))})
	require.Nil(c.t, res.Error, "tasks/get")
	var t extTask
	require.NoError(c.t, json.Unmarshal(res.Result, &t), string(res.Result))
	require.Equal(c.t, "complete", t.ResultType, "tasks/get's own result is complete")
	return t
}

// awaitTask polls tasks/get until the task's status is status.
func (c *rawClient) awaitTask(id, status string) extTask {
	c.t.Helper()
	var t extTask
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if t = c.taskGet(id); t.Status == status {
			return t
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.t.Fatalf("task %s never became %s: %+v; stderr:\n%s", id, status, t, c.stderr.String())
	return t
}

// createdTask reads a CreateTaskResult.
func createdTask(t *testing.T, res rawMessage) extTask {
	t.Helper()
	require.Nil(t, res.Error)
	var created extTask
	require.NoError(t, json.Unmarshal(res.Result, &created), string(res.Result))
	require.Equal(t, "task", created.ResultType, "a CreateTaskResult in lieu of the tool result: %s", res.Result)
	require.NotEmpty(t, created.TaskID)
	require.Equal(t, "working", created.Status)
	return created
}

func taskAction(t *testing.T, task extTask) contract.ActionOutput {
	t.Helper()
	var r struct {
		StructuredContent contract.ActionOutput `json:"structuredContent"`
		IsError           bool                  `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(task.Result, &r), string(task.Result))
	require.False(t, r.IsError, string(task.Result))
	return r.StructuredContent
}

// TestA2026TaskWaitsAsksTheUserInsideTheTaskAndCompletesThroughTasksGet: next_step becomes a task
// that outlives any bound, a question inside it reaches the client as the task's inputRequests
// (an elicitation form), the answer comes back in tasks/update, and the task completes (through
// tasks/get) with what the answer led to: here the user chose to merge, and the PR is merged.
func TestA2026TaskWaitsAsksTheUserInsideTheTaskAndCompletesThroughTasksGet(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	c := w.launchRaw()
	caps := extCaps(true)
	c.startModern(caps, w.ref.String())

	created := createdTask(t, c.callNext(caps, map[string]any{"monitor_id": w.ref.String(), "event": "ready"}))
	assert.Nil(t, created.TTLMs, "no time limit while it works")
	assert.Positive(t, created.PollIntervalMs)
	time.Sleep(1200 * time.Millisecond) // three times the plain call's --max-block
	working := c.taskGet(created.TaskID)
	require.Equal(t, "working", working.Status)
	assert.Contains(t, working.StatusMessage, "acme/widgets#7", "statusMessage says what the task watches")

	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(carol, "LGTM"))
	asking := c.awaitTask(created.TaskID, "input_required")
	require.Len(t, asking.InputRequests, 1, "one question at a time")
	var key string
	var req struct {
		Method string `json:"method"`
		Params struct {
			Meta            map[string]any `json:"_meta"`
			Mode            string         `json:"mode"`
			RequestedSchema struct {
				Properties struct {
					Choice struct {
						OneOf []struct{ Const string } `json:"oneOf"`
					} `json:"choice"`
				} `json:"properties"`
			} `json:"requestedSchema"`
		} `json:"params"`
	}
	for k, v := range asking.InputRequests {
		key = k
		require.NoError(t, json.Unmarshal(v, &req))
	}
	require.Equal(t, "elicitation/create", req.Method)
	assert.Equal(t, "form", req.Params.Mode)
	assert.Equal(t, "ready_to_merge", req.Params.Meta["prmonitor/question"])
	var values []string
	for _, o := range req.Params.RequestedSchema.Properties.Choice.OneOf {
		values = append(values, o.Const)
	}
	require.Contains(t, values, "merge")
	again := c.taskGet(created.TaskID)
	assert.Contains(t, again.InputRequests, key, "the same request, under the same key, until it is answered")

	ignored := c.call("tasks/update", map[string]any{"taskId": created.TaskID, "_meta": modernMeta(caps),
		"inputResponses": map[string]any{"no-such-key": map[string]any{"action": "accept", "content": map[string]any{"choice": "merge"}}}})
	require.Nil(t, ignored.Error)
	assert.Equal(t, "input_required", c.taskGet(created.TaskID).Status, "an answer to no outstanding request changes nothing")
	assert.Zero(t, w.merges)

	w.answered("merge")
	ack := c.call("tasks/update", map[string]any{"taskId": created.TaskID, "_meta": modernMeta(caps),
		"inputResponses": map[string]any{key: map[string]any{"action": "accept", "content": map[string]any{"choice": "merge"}}}})
	require.Nil(t, ack.Error)
	assert.JSONEq(t, `{"resultType":"complete"}`, string(ack.Result))

	done := c.awaitTask(created.TaskID, "completed")
	act := taskAction(t, done)
	assert.Equal(t, "merged", act.Action, "%+v", act)
	assert.Equal(t, 1, w.merges, "the user's answer in the host's form merged it")
	require.NotNil(t, done.TTLMs, "a task that ended is kept a while: its ttl says how long")
	assert.Empty(t, done.InputRequests)
}

// TestAnAllTaskHandsOutTheNextActionOfAnyPullRequest: next_step(monitor_id=all) as a 2026-07-28
// task waits on every monitor and completes with the first action, naming its pull request.
func TestAnAllTaskHandsOutTheNextActionOfAnyPullRequest(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	c := w.launchRaw()
	caps := extCaps(true)
	c.startModern(caps, w.ref.String())
	created := createdTask(t, c.callNext(caps, map[string]any{"monitor_id": "all", "event": "ready"}))
	time.Sleep(900 * time.Millisecond)
	require.Equal(t, "working", c.taskGet(created.TaskID).Status, "past the plain call's bound")
	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestRetry\nFAIL"})
	act := taskAction(t, c.awaitTask(created.TaskID, "completed"))
	assert.Equal(t, "investigate_ci_failure", act.Task, "%+v", act)
	assert.Equal(t, "acme/widgets#7", act.PR)
	assert.Contains(t, act.Next, `monitor_id="all"`)
}

// TestTheTasksExtensionServesOnlyAClientThatDeclaresIt: the server advertises the extension in
// server/discover, and not the 2025-11-25 tasks; without it on the request, tasks/* and a
// subscriptions/listen naming tasks are refused (-32021) and next_step is a
// plain bounded call; an unknown task is -32602; tasks/cancel stops a task, which then says
// cancelled, and the monitor goes on with the next call.
func TestTheTasksExtensionServesOnlyAClientThatDeclaresIt(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	c := w.launchRaw()

	disc := c.call("server/discover", map[string]any{"_meta": modernMeta(extCaps(false))})
	require.Nil(t, disc.Error)
	var d struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(disc.Result, &d))
	assert.Contains(t, string(d.Capabilities["extensions"]), `"io.modelcontextprotocol/tasks"`)
	assert.NotContains(t, d.Capabilities, "tasks", "the 2025-11-25 tasks (tasks/list) are not served in 2026-07-28: not declared")
	list := c.call("tasks/list", map[string]any{"_meta": modernMeta(extCaps(true))})
	require.NotNil(t, list.Error)
	assert.Equal(t, -32601, list.Error.Code, "as server/discover says: no tasks/list")

	listen := func(withTasks bool, ids ...string) rawMessage {
		return c.call("subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": ids}, "_meta": modernMeta(extCaps(withTasks))})
	}
	refusedListen := listen(false, "some-task")
	require.NotNil(t, refusedListen.Error, "task status notifications are the extension's")
	assert.Equal(t, -32021, refusedListen.Error.Code)
	assert.Contains(t, string(refusedListen.Error.Data), "io.modelcontextprotocol/tasks")
	assert.Nil(t, listen(true, "some-task").Error, "with the extension declared, the subscription is answered")

	refused := c.call("tasks/get", map[string]any{"taskId": "x", "_meta": modernMeta(extCaps(false))})
	require.NotNil(t, refused.Error)
	assert.Equal(t, -32021, refused.Error.Code)
	assert.Contains(t, string(refused.Error.Data), "io.modelcontextprotocol/tasks")
	unknown := c.call("tasks/get", map[string]any{"taskId": "no-such-task", "_meta": modernMeta(extCaps(true))})
	require.NotNil(t, unknown.Error)
	assert.Equal(t, -32602, unknown.Error.Code)

	c.startModern(extCaps(false), w.ref.String())
	var plain contract.ActionOutput
	began := time.Now()
	c.tool(c.callNext(extCaps(false), map[string]any{"monitor_id": w.ref.String(), "event": "ready"}), &plain)
	assert.Equal(t, "polling", plain.Action, "without the extension: a plain call, bounded")
	assert.Less(t, time.Since(began), 5*time.Second)

	created := createdTask(t, c.callNext(extCaps(true), map[string]any{"monitor_id": w.ref.String(), "event": "ready"}))
	cancel := c.call("tasks/cancel", map[string]any{"taskId": created.TaskID, "_meta": modernMeta(extCaps(true))})
	require.Nil(t, cancel.Error)
	assert.Equal(t, "cancelled", c.taskGet(created.TaskID).Status)
	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "FAIL"})
	var next contract.ActionOutput
	for i := 0; i < 30 && next.Action != "execute"; i++ {
		c.tool(c.callNext(extCaps(false), map[string]any{"monitor_id": w.ref.String(), "event": "ready"}), &next)
	}
	assert.Equal(t, "investigate_ci_failure", next.Task, "the monitor goes on after the cancel: %+v", next)
}
