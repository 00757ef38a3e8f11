package front

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Draining: when the process is told to stop, a call that waits for news (next_step's wait, a
// form's) ends its wait at once and answers as it would at the end of it ("still watching"; the
// agent calls again, on another front end), while the HTTP server still stands to send that
// answer. Calls that do work finish it.

// drainable wraps the tool handlers so that Drain ends their waits: each call's context ends
// when the front end drains, not only when its request does.
func (f *Front) drainable(tools map[string]server.ToolHandlerFunc) map[string]server.ToolHandlerFunc {
	out := make(map[string]server.ToolHandlerFunc, len(tools))
	for name, h := range tools {
		out[name] = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := context.AfterFunc(f.draining, cancel)
			defer stop()
			return h(ctx, req)
		}
	}
	return out
}

// Drain ends the waits of the calls in flight and of any call that comes after.
func (f *Front) Drain() { f.drain() }
