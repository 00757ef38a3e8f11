package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// MCP tasks (protocol 2025-11-25) end to end: the built binary over stdio, and mcp-go's client,
// which speaks tasks (tasks/get, tasks/result, tasks/cancel); the official go-sdk v1.8.0 the other
// end-to-end tests use has no tasks.

// taskClient is an MCP client session that can call tools as tasks.
type taskClient struct {
	t      *testing.T
	c      *client.Client
	tr     *transport.Stdio
	cmd    *exec.Cmd
	stderr *syncBuffer
	init   *mcp.InitializeResult

	mu       sync.Mutex
	progress int
	elicits  int
	seq      int
	// elicitTask is the task the last form was tied to (related-task metadata).
	elicitTask string
	// hold, when set, keeps each form open until it is closed; statuses are the task statuses
	// notifications/tasks/status said, in order.
	hold     chan struct{}
	statuses []mcp.TaskStatus
}

// launchTasks starts prmonitor serve (with the world's short --max-block, which a task ignores)
// and connects a tasks-capable 2025-11-25 client that could elicit too.
func (w *world) launchTasks() *taskClient {
	w.t.Helper()
	tc := &taskClient{t: w.t, stderr: &syncBuffer{}}
	tc.tr = transport.NewStdioWithOptions(binary, nil, nil,
		transport.WithCommandStderrWriter(tc.stderr),
		transport.WithCommandFunc(func(ctx context.Context, _ string, _, _ []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, binary, "serve", "--github-url", w.fake.URL(), "--state-dir", w.stateDir,
				"--poll-busy", "15ms", "--poll-quiet", "15ms", "--poll-other", "15ms", "--max-block", w.maxBlock(), "--progress-every", "100ms")
			cmd.Env = []string{"GITHUB_TOKEN=" + token, "HOME=" + w.stateDir, "PATH=/usr/bin:/bin"}
			tc.cmd = cmd
			return cmd, nil
		}))
	tc.c = client.NewClient(tc.tr, client.WithProtocolVersion("2025-11-25"),
		client.WithElicitationHandler(elicitCounter{tc}))
	require.NoError(w.t, tc.c.Start(context.Background()))
	tc.c.OnNotification(func(n mcp.JSONRPCNotification) {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		switch n.Method {
		case string(mcp.MethodNotificationProgress):
			tc.progress++
		case string(mcp.MethodNotificationTasksStatus):
			status, _ := n.Params.AdditionalFields["status"].(string)
			tc.statuses = append(tc.statuses, mcp.TaskStatus(status))
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e-tasks", Version: "1"}
	init.Params.Capabilities = mcp.ClientCapabilities{Tasks: mcp.NewTasksCapability(), Elicitation: &mcp.ElicitationCapability{}}
	res, err := tc.c.Initialize(ctx, init)
	require.NoError(w.t, err, "initialize; server stderr:\n%s", tc.stderr.String())
	tc.init = res
	w.t.Cleanup(tc.close)
	return tc
}

func (tc *taskClient) close() {
	_ = tc.c.Close()
	require.NotContains(tc.t, tc.stderr.String(), token, "the token never appears in the server's logs")
	require.NotContains(tc.t, tc.stderr.String(), "DATA RACE", "a server built with -race found none")
}

// kill ends the server the hard way (SIGKILL: no cleanup, no last save).
func (tc *taskClient) kill() {
	tc.t.Helper()
	require.NoError(tc.t, tc.cmd.Process.Kill())
	_ = tc.c.Close()
}

// elicitCounter is a user who dismisses every form; it counts them and keeps the task each was tied to.
type elicitCounter struct{ tc *taskClient }

func (e elicitCounter) Elicit(ctx context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	e.tc.mu.Lock()
	hold := e.tc.hold
	e.tc.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
	e.tc.mu.Lock()
	e.tc.elicits++
	if r.Params.Meta != nil {
		if rel, ok := r.Params.Meta.AdditionalFields[mcp.RelatedTaskMetaKey].(map[string]any); ok {
			e.tc.elicitTask, _ = rel["taskId"].(string)
		}
	}
	e.tc.mu.Unlock()
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
}

func (tc *taskClient) progressCount() int {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.progress
}

// waited waits, under a generous deadline, until n more progress notifications than from have
// come: a task's heartbeat ticks once per --progress-every (100 ms) at most (a failed poll adds a
// note of its own; none fails here), so by then the task has waited at least n of them by the
// server's own clock, however loaded the machine.
func (tc *taskClient) waited(from, n int) {
	tc.t.Helper()
	require.Eventually(tc.t, func() bool { return tc.progressCount() >= from+n }, time.Minute, 10*time.Millisecond,
		"%d progress notifications while the task waits; stderr:\n%s", n, tc.stderr.String())
}

// start calls pr_monitor_start, a plain call.
func (tc *taskClient) start() contract.StartOutput {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tc.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_monitor_start",
		Arguments: map[string]any{"pr": "https://github.com/acme/widgets/pull/7"}}})
	require.NoError(tc.t, err)
	require.False(tc.t, res.IsError, "%+v", res.Content)
	var out contract.StartOutput
	decode(tc.t, res.StructuredContent, &out)
	return out
}

// next calls pr_monitor_next_step(event=ready) as a plain call.
func (tc *taskClient) next() contract.ActionOutput {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tc.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_monitor_next_step",
		Arguments: map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"}}})
	require.NoError(tc.t, err)
	require.False(tc.t, res.IsError, "%+v", res.Content)
	var out contract.ActionOutput
	decode(tc.t, res.StructuredContent, &out)
	return out
}

// callTask sends tools/call augmented with a task (and a progress token) and returns the reply's
// result: a CreateTaskResult, or whatever else the server answered.
func (tc *taskClient) callTask(name string, args map[string]any) json.RawMessage {
	return tc.callTaskTTL(name, args, 600000)
}

// callTaskTTL is callTask with the task's time to live, in milliseconds.
func (tc *taskClient) callTaskTTL(name string, args map[string]any, ttl int64) json.RawMessage {
	tc.t.Helper()
	tc.mu.Lock()
	tc.seq++
	id := fmt.Sprintf("task-call-%d", tc.seq)
	tc.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	resp, err := tc.tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: "tools/call",
		Params: map[string]any{"name": name, "arguments": args, "task": map[string]any{"ttl": ttl}, "_meta": map[string]any{"progressToken": id}}})
	require.NoError(tc.t, err)
	require.Nil(tc.t, resp.Error)
	return resp.Result
}

// nextTask calls next_step(event=ready) as a task and returns the task's id.
func (tc *taskClient) nextTask() string {
	tc.t.Helper()
	return tc.nextTaskTTL(600000)
}

func (tc *taskClient) nextTaskTTL(ttl int64) string {
	tc.t.Helper()
	raw := tc.callTaskTTL("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"}, ttl)
	var created struct {
		Task mcp.Task `json:"task"`
	}
	require.NoError(tc.t, json.Unmarshal(raw, &created), string(raw))
	require.NotEmpty(tc.t, created.Task.TaskId, "a CreateTaskResult: %s", raw)
	require.Equal(tc.t, mcp.TaskStatusWorking, created.Task.Status)
	return created.Task.TaskId
}

func (tc *taskClient) status(id string) mcp.TaskStatus {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tc.c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}})
	require.NoError(tc.t, err)
	return res.Status
}

// result waits for the task's result (tasks/result blocks until the task ends).
func (tc *taskClient) result(id string) contract.ActionOutput {
	tc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := tc.c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: id}})
	require.NoError(tc.t, err, "server stderr:\n%s", tc.stderr.String())
	require.False(tc.t, res.IsError, "%+v", res.Content)
	var out contract.ActionOutput
	decode(tc.t, res.StructuredContent, &out)
	return out
}

func decode(t *testing.T, v any, out any) {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, out), string(raw))
}

// TestATaskNextStepWaitsUntilThePullRequestNeedsTheAgent: as a task, next_step is bounded by no
// --max-block (400 ms here): it stays working, with progress, while CI runs, and completes with
// the agent's task when the fake GitHub says CI failed.
func TestATaskNextStepWaitsUntilThePullRequestNeedsTheAgent(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	tc := w.launchTasks()
	tc.start()
	from := tc.progressCount()
	id := tc.nextTask()
	tc.waited(from, 12) // 1.2 s at least: three times the plain call's bound
	require.Equal(t, mcp.TaskStatusWorking, tc.status(id), "still watching, past any bound a plain call has")

	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestRetry\nFAIL"})
	act := tc.result(id)
	require.Equal(t, "execute", act.Action, "%+v", act)
	require.Equal(t, "investigate_ci_failure", act.Task)
	require.Equal(t, mcp.TaskStatusCompleted, tc.status(id))
}

// TestAQuestionInsideATaskIsShownToTheUserTiedToItsTask: a 2025-11-25 task asks the user through
// the client, as elicitation/create tied to the task (io.modelcontextprotocol/related-task). This
// user dismisses the form: the task ends with ask_user, and the agent may relay any choice but the
// merge, which only the user's own pick in the form can make.
func TestAQuestionInsideATaskIsShownToTheUserTiedToItsTask(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	tc := w.launchTasks()
	tc.start()
	id := tc.nextTask()
	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(carol, "LGTM"))
	act := tc.result(id)
	require.Equal(t, "ask_user", act.Action, "%+v", act)
	require.Equal(t, "ready_to_merge", string(act.Question.ID))
	assert.Contains(t, act.Message, "only their own pick there can choose")
	tc.mu.Lock()
	assert.Equal(t, 1, tc.elicits, "the question was shown to the user from inside the task")
	assert.Equal(t, id, tc.elicitTask, "tied to its task")
	tc.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := tc.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_monitor_next_step",
		Arguments: map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose", "choice": "merge", "question_seq": act.Question.Seq}}})
	require.NoError(t, err)
	require.True(t, res.IsError, "the agent's merge is refused")
	assert.Zero(t, w.merges)
	assert.Empty(t, w.fake.Merges())
}

// TestATaskWhoseQuestionIsOutIsInputRequired: while the form a 2025-11-25 task put to the user is
// open, tasks/get, tasks/list and the task status notifications say input_required; once it is
// answered (here dismissed) the task goes on and completes.
func TestATaskWhoseQuestionIsOutIsInputRequired(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	tc := w.launchTasks()
	hold := make(chan struct{})
	tc.mu.Lock()
	tc.hold = hold
	tc.mu.Unlock()
	tc.start()
	id := tc.nextTask()
	require.Equal(t, mcp.TaskStatusWorking, tc.status(id))
	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(carol, "LGTM"))
	require.Eventually(t, func() bool { return tc.status(id) == mcp.TaskStatusInputRequired }, 30*time.Second, 20*time.Millisecond,
		"tasks/get says input_required while the question is out")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := tc.c.ListTasks(ctx, mcp.ListTasksRequest{})
	require.NoError(t, err)
	var listed []mcp.TaskStatus
	for _, task := range list.Tasks {
		if task.TaskId == id {
			listed = append(listed, task.Status)
		}
	}
	assert.Equal(t, []mcp.TaskStatus{mcp.TaskStatusInputRequired}, listed, "tasks/list says so too")
	require.Eventually(t, func() bool {
		tc.mu.Lock()
		defer tc.mu.Unlock()
		return len(tc.statuses) > 0 && tc.statuses[len(tc.statuses)-1] == mcp.TaskStatusInputRequired
	}, 10*time.Second, 10*time.Millisecond, "a task status notification says input_required")

	close(hold)
	act := tc.result(id)
	require.Equal(t, "ask_user", act.Action, "%+v", act)
	assert.Equal(t, mcp.TaskStatusCompleted, tc.status(id))
	tc.mu.Lock()
	assert.Contains(t, tc.statuses, mcp.TaskStatusWorking, "and working again once it is answered")
	tc.mu.Unlock()
}

// TestTasksCancelStopsTheWaitAndLeavesTheMonitorIntact: tasks/cancel ends the task (cancelled) and
// its wait (no more polls); the monitor goes on with the next call.
func TestTasksCancelStopsTheWaitAndLeavesTheMonitorIntact(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	tc := w.launchTasks()
	tc.start()
	from := tc.progressCount()
	id := tc.nextTask()
	tc.waited(from, 1)
	require.Equal(t, mcp.TaskStatusWorking, tc.status(id))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := tc.c.CancelTask(ctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: id}})
	require.NoError(t, err)
	require.Equal(t, mcp.TaskStatusCancelled, res.Status)
	require.Equal(t, mcp.TaskStatusCancelled, tc.status(id))

	// Polls are the watcher's: its change detection goes on for the monitor (one fingerprint
	// request per cycle), and nothing moved, so no snapshot is read. Its cycles are the markers:
	// one lets what was in flight at the cancel land; in three more, a wait the cancel left
	// running would have read.
	reads := func() (snapshots, fingerprints int) {
		reqs := w.fake.Requests()
		_, snapshots = ledgerOf(reqs)
		for _, r := range reqs {
			if strings.Contains(r.Document, "fragment fp on PullRequest") {
				fingerprints++
			}
		}
		return snapshots, fingerprints
	}
	cycles := func(n int) {
		t.Helper()
		_, from := reads()
		require.Eventually(t, func() bool { _, got := reads(); return got >= from+n }, time.Minute, 10*time.Millisecond, "the watcher goes on detecting changes")
	}
	cycles(1)
	before, fp := reads()
	cycles(3)
	after, fpAfter := reads()
	assert.Equal(t, before+fpAfter-fp, after, "after the cancel only the watcher's change detection reads GitHub")

	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "FAIL"})
	act := tc.next()
	require.Equal(t, "execute", act.Action, "the monitor goes on: %+v", act)
	require.Equal(t, "investigate_ci_failure", act.Task)
}

// TestARestartWhileATaskWaitsLeavesTheMonitorResumable: the server dies while a task waits; the
// task is gone with it, the monitor is not: a new server resumes it on next_step (here a new task,
// which completes) as on pr_monitor_start.
func TestARestartWhileATaskWaitsLeavesTheMonitorResumable(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	tc := w.launchTasks()
	tc.start()
	from := tc.progressCount()
	tc.nextTask()
	tc.waited(from, 1)
	tc.kill()

	tc = w.launchTasks()
	id := tc.nextTask() // no pr_monitor_start: next_step resumes the saved monitor
	w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "FAIL"})
	act := tc.result(id)
	require.Equal(t, "investigate_ci_failure", act.Task, "%+v", act)

	tc.kill()
	tc = w.launchTasks()
	out := tc.start()
	require.True(t, out.Resumed, "pr_monitor_start resumes it too")
	require.NotNil(t, out.Pending)
	require.Equal(t, "investigate_ci_failure", out.Pending.Task, "with the task it had handed out")
}

// TestATaskEndsWithPollingBeforeItsTimeToLive: a task whose client gave it 2 s to live ends with
// polling a little before (at 1.8 s: its result can still be read), not at --max-block; the exact
// margin is TestOnlyATaskEscapesTheHostsBound's.
func TestATaskEndsWithPollingBeforeItsTimeToLive(t *testing.T) {
	w := newWorld(t, legacy)
	w.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	tc := w.launchTasks()
	tc.start()
	began := time.Now()
	id := tc.nextTaskTTL(2000)
	act := tc.result(id)
	took := time.Since(began)
	require.Equal(t, "polling", act.Action, "%+v", act)
	assert.GreaterOrEqual(t, took, 1800*time.Millisecond, "past the 400ms --max-block, to a little before the time to live")
	assert.Less(t, took, 3*time.Second, "and not long after")
}

// TestOnlyNextStepIsOfferedAsATask: the server declares task-augmented tools/call, and of its
// tools only pr_monitor_next_step supports it; a task-augmented call to another tool creates no
// task (mcp-go answers it as a plain call, at once).
func TestOnlyNextStepIsOfferedAsATask(t *testing.T) {
	w := newWorld(t, legacy)
	tc := w.launchTasks()
	caps := tc.init.Capabilities.Tasks
	require.NotNil(t, caps, "the tasks capability")
	require.NotNil(t, caps.Requests)
	require.NotNil(t, caps.Requests.Tools)
	require.NotNil(t, caps.Requests.Tools.Call, "task-augmented tools/call")
	require.NotNil(t, caps.Cancel)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tools, err := tc.c.ListTools(ctx, mcp.ListToolsRequest{})
	require.NoError(t, err)
	support := map[string]mcp.TaskSupport{}
	for _, tool := range tools.Tools {
		support[tool.Name] = ""
		if tool.Execution != nil {
			support[tool.Name] = tool.Execution.TaskSupport
		}
	}
	require.Equal(t, map[string]mcp.TaskSupport{
		"pr_monitor_next_step": mcp.TaskSupportOptional,
		"pr_monitor_start":     "", "pr_monitor_start_all": "", "pr_monitor_status": "", "pr_monitor_stop": "",
	}, support, "pr_dispatch only on a server started with --dispatch")

	var plain struct {
		Task              *mcp.Task `json:"task"`
		StructuredContent any       `json:"structuredContent"`
	}
	require.NoError(t, json.Unmarshal(tc.callTask("pr_monitor_status", map[string]any{}), &plain))
	assert.Nil(t, plain.Task, "no task for a tool that does not support them")
	assert.Equal(t, map[string]any{"monitors": []any{}}, plain.StructuredContent)
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := tc.c.ListTasks(ctx, mcp.ListTasksRequest{})
	require.NoError(t, err)
	assert.Empty(t, list.Tasks)
}
