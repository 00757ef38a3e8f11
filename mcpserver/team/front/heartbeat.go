package front

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// heartbeat sends a waiting call's progress every ProgressEvery when the client asked for it
// (a progress token): hosts that keep a call alive on progress keep it, and the response stream
// (upgraded to server-sent events by the first notification) never sits idle behind a proxy. It
// returns the function that stops it.
func (f *Front) heartbeat(ctx context.Context, req mcp.CallToolRequest, c *call) func() {
	meta := req.Params.Meta
	srv := server.ServerFromContext(ctx)
	if meta == nil || meta.ProgressToken == nil || srv == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(f.cfg.ProgressEvery)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
					"progressToken": meta.ProgressToken, "progress": n, "message": "waiting for " + c.id})
			}
		}
	}()
	return func() { close(stop); <-done }
}
