package mcpserver

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// MCP tasks (protocol 2025-11-25): a client that augments tools/call with a task gets a task id at
// once and reads the result with tasks/get and tasks/result. pr_monitor_next_step accepts that
// (taskSupport "optional"; the other tools do not), and as a task it waits until the pull request
// needs the agent, however long that is, instead of returning polling at the host's bound.
//
// mcp-go v1.2.1 runs a task under the tools/call request's context, and over stdio that context
// ends as soon as the CreateTaskResult is written: every task would be cancelled at birth. So a
// task's call runs detached from it, and tasks/cancel reaches the call through mcp-go's task hooks.
// The hooks name the task by id, the handler does not know its id: a per-request slot, put in the
// context by the _meta propagator hook mcp-go runs on every request, carries the id from the
// task-created hook (which runs before the handler starts) to the handler.
//
// Inside a 2025-11-25 task a question goes to the client as elicitation/create tied to the task
// (the driver's taskAsksClient; mcp-go v1.2.1 cannot set the task's status to input_required, so
// the server shows it itself while the question is out: tasks_asking.go); work the host's model could do by
// sampling goes to the agent. The 2026-07-28 io.modelcontextprotocol/tasks extension, which mcp-go
// v1.2.1 does not implement, is served by an adapter of ours in front of it (tasks_ext.go), and
// there a question goes to the client inside the task (its input requests). callDeadline (calls.go)
// is the one place that decides between a task and a bounded call.

// taskCalls maps each running task of next_step to the cancel of its detached call.
type taskCalls struct {
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	// early holds tasks cancelled before their call registered.
	early map[string]bool
	// asks counts, by task, the questions out to the user (tasks_asking.go); queries numbers the
	// server's own tasks/get requests to mcp-go.
	asks    map[string]int
	queries atomic.Int64
}

func newTaskCalls() *taskCalls {
	return &taskCalls{cancels: map[string]context.CancelFunc{}, early: map[string]bool{}, asks: map[string]int{}}
}

// add registers a task's call; a task already cancelled is cancelled at once.
func (t *taskCalls) add(id string, cancel context.CancelFunc) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.early[id] {
		delete(t.early, id)
		cancel()
		return
	}
	t.cancels[id] = cancel
}

func (t *taskCalls) remove(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.cancels, id)
}

// cancel is tasks/cancel reaching the task's call.
func (t *taskCalls) cancel(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.cancels[id]; ok {
		c()
		return
	}
	if len(t.early) < maxInflight {
		t.early[id] = true
	}
}

// forget drops what is known of a task that ended.
func (t *taskCalls) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.early, id)
}

// taskSlot is one request's place for the id of the task it created.
type taskSlot struct {
	mu sync.Mutex
	id string
}

// taskID is the id of the task the request created ("" when it created none).
func (s *taskSlot) taskID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

type taskSlotKey struct{}

func slotFrom(ctx context.Context) *taskSlot {
	s, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	return s
}

// slotPropagator gives every request its slot. It is mcp-go's hook for reading trace context from
// _meta, the one per-request context hook of the stdio server; it reads nothing and injects nothing.
type slotPropagator struct{}

func (slotPropagator) InjectMeta(_ context.Context, meta *mcp.Meta) *mcp.Meta { return meta }

func (slotPropagator) ExtractMeta(ctx context.Context, _ *mcp.Meta) context.Context {
	return context.WithValue(ctx, taskSlotKey{}, &taskSlot{})
}

// taskOptions are the server's task capability (tasks/list, tasks/cancel, task-augmented
// tools/call) and the hooks that tie tasks to their calls. At most Workers tasks run at once.
func (s *Server) taskOptions() []server.ServerOption {
	hooks := &server.TaskHooks{}
	hooks.AddOnTaskCreated(func(ctx context.Context, m server.TaskMetrics) {
		if slot := slotFrom(ctx); slot != nil {
			slot.mu.Lock()
			slot.id = m.TaskID
			slot.mu.Unlock()
		}
	})
	hooks.AddOnTaskCancelled(func(_ context.Context, m server.TaskMetrics) { s.tasks.cancel(m.TaskID) })
	hooks.AddOnTaskCompleted(func(_ context.Context, m server.TaskMetrics) { s.tasks.forget(m.TaskID) })
	hooks.AddOnTaskFailed(func(_ context.Context, m server.TaskMetrics) { s.tasks.forget(m.TaskID) })
	return []server.ServerOption{
		server.WithTaskCapabilities(true, true, true),
		// The 2026-07-28 tasks extension, served over stdio by the adapter (tasks_ext.go).
		server.WithExtensions(map[string]any{extTasksID: map[string]any{}}),
		server.WithTaskHooks(hooks),
		server.WithMetaPropagator(slotPropagator{}),
		server.WithMaxConcurrentTasks(s.cfg.Workers),
	}
}

// taskContext is the context a next_step call runs under: the request's, or for a task a context
// detached from the tools/call request (which ends when the task is created) that tasks/cancel,
// a later call on the monitor or the server's shutdown ends. release ends it.
func (s *Server) taskContext(ctx context.Context, req mcp.CallToolRequest) (context.Context, func()) {
	slot := slotFrom(ctx)
	if req.Params.Task == nil || slot == nil {
		return ctx, func() {}
	}
	slot.mu.Lock()
	id := slot.id
	slot.mu.Unlock()
	if id == "" { // not created by mcp-go's task path: the request's context is the task's
		return ctx, func() {}
	}
	detached, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.tasks.add(id, cancel)
	return detached, func() {
		s.tasks.remove(id)
		cancel()
	}
}
