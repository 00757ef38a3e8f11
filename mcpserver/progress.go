package mcpserver

import (
	"context"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

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
