package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
)

// A next_step tool call's life, top-down: it begins (the call slot of its monitor, or of
// monitor_id=all, makes it the one driving it), gets its deadline (a call bounded for its host, or
// an MCP task) and its progress, and is handed to a driver; and the bound on how many calls wait
// at once.

// toolCall is one pr_monitor_next_step call as the server runs it: the context it runs under (it
// ends when the call is cancelled or superseded), its request, its deadline and its progress.
type toolCall struct {
	ctx      context.Context
	req      mcp.CallToolRequest
	deadline time.Time
	// mode: the call runs as a plain call, or as an MCP task of either revision (tasks.go).
	mode taskMode
	// beat sends the call's progress notifications; nil when the client asked for none.
	beat *heartbeat
}

// beginCall is every next_step call's preamble: begin makes the call the one driving its monitor
// (or monitor_id=all), superseding the call that did; the call gets its deadline (callDeadline) and
// its progress notes, each text's line (none when text is nil). end stops them and lets the call
// go; the result goes out after.
func (s *Server) beginCall(ctx context.Context, req mcp.CallToolRequest, begin func(context.Context) (context.Context, func()), text func() string) (*toolCall, func()) {
	ctx, done := begin(ctx)
	deadline, mode := s.callDeadline(ctx, req)
	c := &toolCall{ctx: ctx, req: req, deadline: deadline, mode: mode}
	if t := extTaskFrom(ctx); t != nil && text != nil {
		t.describeWith(text) // a 2026-07-28 task says in tasks/get what its call says in progress
	}
	if text != nil {
		c.beat = startHeartbeat(ctx, req, s.cfg.ProgressEvery, text)
	}
	return c, func() {
		c.beat.close()
		done()
	}
}

// callDeadline decides how a next_step call runs: as a task when the client asked for one
// (2025-11-25) or the server made one (the 2026-07-28 extension): it waits until the pull request
// needs the agent, only the time to live the client gave bounding it, so that its result is still
// there to read; else as a call bounded to fit the client's host.
func (s *Server) callDeadline(ctx context.Context, req mcp.CallToolRequest) (time.Time, taskMode) {
	now := time.Now()
	if extTaskFrom(ctx) != nil {
		return now.Add(taskForever), extensionTask
	}
	if req.Params.Task == nil {
		return now.Add(s.callBound(ctx)), plainCall
	}
	if ttl := req.Params.Task.TTL; ttl != nil && *ttl > 0 {
		d := time.Duration(*ttl) * time.Millisecond
		return now.Add(d - min(d/10, time.Minute)), legacyTask
	}
	return now.Add(taskForever), legacyTask
}

// taskForever stands for "no bound" in a task the client gave no time to live.
const taskForever = 10 * 365 * 24 * time.Hour

// taskMode is how a next_step call runs.
type taskMode int

const (
	// plainCall: bounded to fit the client's host; it holds a worker of the transport.
	plainCall taskMode = iota
	// legacyTask: a 2025-11-25 task. It asks nothing of the client: questions go to the agent.
	legacyTask
	// extensionTask: a task of the 2026-07-28 extension (tasks_ext.go). Its questions go to the client
	// as the task's inputRequests.
	extensionTask
)

// callBound is how long a next_step call outside a task may wait: Config.MaxBlock when it was set
// (the --max-block flag: an explicit choice wins), else the bound that fits the client's host.
func (s *Server) callBound(ctx context.Context) time.Duration {
	if s.cfg.maxBlockSet {
		return s.cfg.MaxBlock
	}
	host, b := contract.BoundFor(s.cfg.HostBounds, s.cfg.DefaultBound, contract.ClientInfo(ctx))
	s.cfg.Logger.Debug("next_step bound", "host", host, "bound", b)
	return b
}

// heartbeat sends a call's progress notifications. It runs on its own clock: every ProgressEvery
// of the call, whatever the call is doing (waiting between polls, whatever the poll interval;
// waiting for GitHub; waiting for the user's answer), it sends the one-line summary, so hosts
// that keep a call alive on progress keep it alive. The driver sends its own messages through it
// too (a failed poll), so progress counts up in one sequence.
type heartbeat struct {
	ctx   context.Context
	srv   *server.MCPServer
	token mcp.ProgressToken
	text  func() string

	mu    sync.Mutex
	ticks float64
	extra string // appended to the summary (a rate-limit wait)

	stop chan struct{}
	done chan struct{}
}

// startHeartbeat starts a call's progress clock when the client asked for progress (nil when it
// did not): every interval it sends text's line.
func startHeartbeat(ctx context.Context, req mcp.CallToolRequest, every time.Duration, text func() string) *heartbeat {
	meta := req.Params.Meta
	if meta == nil || meta.ProgressToken == nil {
		return nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	h := &heartbeat{ctx: ctx, srv: srv, token: meta.ProgressToken, text: text, stop: make(chan struct{}), done: make(chan struct{})}
	go h.run(every)
	return h
}

func (h *heartbeat) run(every time.Duration) {
	defer close(h.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-h.ctx.Done():
			return
		case <-t.C:
			h.mu.Lock()
			extra := h.extra
			h.mu.Unlock()
			msg := h.text()
			if extra != "" {
				msg += " · " + extra
			}
			h.send(msg)
		}
	}
}

// send sends one progress notification.
func (h *heartbeat) send(msg string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.stop:
		return // the call is answered: nothing more may be said about it
	default:
	}
	h.ticks++
	_ = h.srv.SendNotificationToClient(h.ctx, string(mcp.MethodNotificationProgress), map[string]any{
		"progressToken": h.token, "progress": h.ticks, "message": msg,
	})
}

// close stops the clock before the call's result goes out.
func (h *heartbeat) close() {
	if h == nil {
		return
	}
	h.mu.Lock()
	close(h.stop)
	h.mu.Unlock()
	<-h.done
}

// Say sends msg as a progress notification at once (nil: the client asked for none).
func (h *heartbeat) Say(msg string) {
	if h != nil {
		h.send(msg)
	}
}

// Remark adds a standing remark to every later progress notification ("" clears it).
func (h *heartbeat) Remark(note string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.extra = note
	h.mu.Unlock()
}

// holdsWorker: the call holds a worker of the transport while it waits (a task does not: a
// 2025-11-25 task runs on mcp-go's task goroutine, a 2026-07-28 one on the adapter's).
func (c *toolCall) holdsWorker() bool { return c.mode == plainCall }

// until is the call with its deadline moved to at least t.
func (c *toolCall) until(t time.Time) *toolCall {
	cc := *c
	if cc.deadline.Before(t) {
		cc.deadline = t
	}
	return &cc
}

// driverCall is the call as a driver runs in it.
func (c *toolCall) driverCall() driver.Call {
	return driver.Call{Deadline: c.deadline, Progress: c.beat, HoldsWorker: c.holdsWorker(), Legacy: c.mode == legacyTask, Responses: c.req.Params.InputResponses}
}

// waitSlots bounds how many calls may block at once: the transport runs tool calls on a fixed
// pool of workers, and a blocked call holds one; the rest stay free so that pr_monitor_status and
// pr_monitor_stop answer whatever is blocked.
type waitSlots struct{ ch chan struct{} }

func newWaitSlots(n int) *waitSlots { return &waitSlots{ch: make(chan struct{}, max(n, 1))} }

// acquire takes a slot without waiting; ok is false when every slot is taken.
func (w *waitSlots) acquire() (func(), bool) {
	select {
	case w.ch <- struct{}{}:
		return func() { <-w.ch }, true
	default:
		return nil, false
	}
}

func (w *waitSlots) size() int { return cap(w.ch) }

// waiters is how many of workers calls may block: all but a reserve for the calls that must
// answer at once (an eighth, at least 2, at most 16; at least one may wait).
func waiters(workers int) int {
	reserve := min(max(workers/8, 2), 16)
	return max(workers-reserve, 1)
}
