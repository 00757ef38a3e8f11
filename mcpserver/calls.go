package mcpserver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
)

// A next_step tool call's life: the slot that makes it the one driving its monitor (or
// monitor_id=all), its deadline and progress, and the bound on how many calls wait at once.

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
