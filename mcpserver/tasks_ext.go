package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
)

// MCP tasks in the 2026-07-28 revision: the io.modelcontextprotocol/tasks extension (SEP-2663).
// A client declares it in the capabilities of each request; the server then may answer a
// tools/call with a task (resultType "task") instead of the tool's result, and the client polls
// tasks/get (pollIntervalMs) until the task is completed, failed or cancelled. When the task needs
// the user, tasks/get says input_required and carries inputRequests (an elicitation form, or a
// completion for the host's model); the client answers them with tasks/update, and the task goes
// on. tasks/cancel stops it; there is no tasks/list. Nothing here is wire-compatible with the
// 2025-11-25 tasks (tasks.go), which mcp-go serves and which stay as they are.
//
// mcp-go v1.2.1 does not implement the extension (it can advertise one, WithExtensions, and no
// more), so this small adapter sits in front of it on the stdio stream: it reads the client's
// lines first, serves the extension's requests itself (a task-augmented pr_monitor_next_step,
// tasks/get, tasks/update, tasks/cancel of a 2026-07-28 request), and passes every other line on.
// A task runs the very tools/call the client sent, through mcp-go's own dispatch
// (MCPServer.HandleMessage) on a goroutine of its own: the handler does not know the difference,
// but for two things the context tells it (extTaskFrom): it waits as long as the pull request
// needs (callDeadline), and its questions leave as the plain call's multi-round-trip input
// requests would (the driver's roundtrip.go). The adapter turns such an input_required result into the task's
// inputRequests, and a tasks/update's answers into the retry of the call that the plain call's
// client would have made (inputResponses and the sealed requestState): the driver resumes exactly
// as it does for a plain call. An answer that reaches the driver that way is the user's own,
// given in the host's form (answeredInTask).
//
// Only pr_monitor_next_step becomes a task (monitor_id=all too): the other tools answer at once.
// At most Config.Workers tasks run at once; past that a call is served as a plain call.

// extPollInterval is the pollIntervalMs a task suggests: polling is the host's, over stdio, and
// costs no agent turn; a short interval hands the agent its action soon after it is ready.
const extPollInterval = 2 * time.Second

// extKeep is how long a task that ended stays readable by tasks/get.
const extKeep = time.Hour

// taskExt is the adapter: the tasks it holds and the stream it answers on.
type taskExt struct {
	s *Server

	mu    sync.Mutex
	out   io.Writer // whole lines; the cancel filter serialises them with mcp-go's
	base  context.Context
	stop  context.CancelFunc
	tasks map[string]*extTask
}

func newTaskExt(s *Server, out io.Writer) *taskExt {
	return &taskExt{s: s, out: out, tasks: map[string]*extTask{}}
}

// bind is the stdio server's context function: it sees the context every request is served under
// (the stdio session's), which the tasks run under too, until close.
func (x *taskExt) bind(ctx context.Context) context.Context {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.base, x.stop = context.WithCancel(ctx)
	return ctx
}

// close ends every task still running (the stream is gone).
func (x *taskExt) close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.stop != nil {
		x.stop()
	}
}

// take serves one line of the client's when it is the extension's, and reports whether it did.
func (x *taskExt) take(line []byte) bool {
	var l extLine
	if json.Unmarshal(line, &l) != nil || len(l.ID) == 0 || l.ID[0] == 'n' { // a notification or a response, or not JSON-RPC
		return false
	}
	var p extParams
	if len(l.Params) > 0 && json.Unmarshal(l.Params, &p) != nil {
		return false
	}
	modern, declared := p.modern()
	if !modern {
		return x.legacyTasks(l, line)
	}
	switch l.Method {
	case "tools/call":
		if !declared || p.Name != contract.ToolNextStep || p.RequestState != "" || len(p.InputResponses) > 0 {
			return false // a plain call, or the retry of one that asked for input
		}
		return x.create(l.ID, l.Params)
	case "subscriptions/listen":
		// Task status notifications are the extension's: asked for without it, the request is
		// refused as the extension says. Otherwise mcp-go serves it (and establishes no task
		// subscription: the server sends none, and tasks/get is polled).
		if p.Notifications != nil && len(p.Notifications.TaskIDs) > 0 && !declared {
			x.answer(l.ID, nil, missingExtension())
			return true
		}
		return false
	case "tasks/get", "tasks/update", "tasks/cancel":
		if !declared {
			x.answer(l.ID, nil, missingExtension())
			return true
		}
		t := x.find(p.TaskID)
		if t == nil {
			x.answer(l.ID, nil, unknownTask())
			return true
		}
		switch l.Method {
		case "tasks/get":
			x.answer(l.ID, t.snapshot(), nil)
		case "tasks/update":
			x.update(t, p.InputResponses)
			x.answer(l.ID, ack(), nil)
		default:
			t.cancelTask()
			x.answer(l.ID, ack(), nil)
		}
		return true
	}
	return false
}

// legacyTasks serves a 2025-11-25 tasks/get or tasks/list while some task's question is out
// (tasks_asking.go): mcp-go does not know that task is input_required.
func (x *taskExt) legacyTasks(l extLine, line []byte) bool {
	if (l.Method != "tasks/get" && l.Method != "tasks/list") || !x.s.tasks.anyAsking() {
		return false
	}
	x.mu.Lock()
	ctx := x.base
	x.mu.Unlock()
	if ctx == nil {
		return false
	}
	raw, ok := x.s.legacyTaskAnswer(ctx, line)
	if !ok {
		return false
	}
	x.write(raw)
	return true
}

// ack is the empty result of tasks/update and tasks/cancel.
func ack() map[string]any { return map[string]any{"resultType": "complete"} }

// create starts a task for a tools/call and answers the call with it; false (the call is served
// as a plain one) when the server is not bound to a stream yet or runs as many tasks as it may.
func (x *taskExt) create(id json.RawMessage, params json.RawMessage) bool {
	x.mu.Lock()
	if x.base == nil || x.base.Err() != nil || x.runningLocked() >= max(x.s.cfg.Workers, 1) {
		x.mu.Unlock()
		return false
	}
	now := time.Now()
	x.sweepLocked(now)
	ctx, cancel := context.WithCancel(x.base)
	t := &extTask{id: newTaskID(), created: now, updated: now, status: extWorking, ctx: ctx, cancel: cancel}
	x.tasks[t.id] = t
	x.mu.Unlock()
	created := t.snapshot()
	created["resultType"] = "task"
	x.answer(id, created, nil)
	go x.run(ctx, t, withoutProgress(params), false)
	return true
}

// find is the task of id (nil when it is unknown, or ended long enough ago to be gone).
func (x *taskExt) find(id string) *extTask {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.sweepLocked(time.Now())
	return x.tasks[id]
}

// runningLocked counts the tasks not ended.
func (x *taskExt) runningLocked() int {
	n := 0
	for _, t := range x.tasks {
		if !t.ended() {
			n++
		}
	}
	return n
}

// sweepLocked forgets the tasks that ended more than extKeep ago.
func (x *taskExt) sweepLocked(now time.Time) {
	for id, t := range x.tasks {
		if t.expired(now) {
			delete(x.tasks, id)
		}
	}
}

// answer writes one JSON-RPC response line.
func (x *taskExt) answer(id json.RawMessage, result any, e *rpcError) {
	b, err := json.Marshal(rpcAnswer{JSONRPC: "2.0", ID: id, Result: result, Error: e})
	if err != nil {
		x.s.cfg.Logger.Error("tasks extension: could not encode an answer", "err", err)
		return
	}
	x.write(b)
}

// write writes one JSON-RPC line.
func (x *taskExt) write(b []byte) {
	if _, err := x.out.Write(append(b, '\n')); err != nil {
		x.s.cfg.Logger.Warn("tasks extension: could not write an answer", "err", err)
	}
}

// newTaskID is an id no one can guess (128 random bits): it is all that names a task.
func newTaskID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// withoutProgress drops the client's progress token from a call's _meta: progress is not part of
// the extension's tasks, whose state tasks/get reports (statusMessage).
func withoutProgress(params json.RawMessage) json.RawMessage {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if raw, ok := p["_meta"]; !ok || json.Unmarshal(raw, &meta) != nil {
		return params
	}
	if _, ok := meta["progressToken"]; !ok {
		return params
	}
	delete(meta, "progressToken")
	p["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}
