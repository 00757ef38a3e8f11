// Command hellomcp is the smallest mcp-go server worth starting: one tool, served over stdio. The
// start-up benchmark (BenchmarkColdStartToInitialize) builds and runs it beside prmonitor, the
// same way, as the floor prmonitor's start is measured against.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("hello", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("hello", mcp.WithDescription("Say hello."), mcp.WithString("name", mcp.Description("Who to greet."))),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("hello, " + req.GetString("name", "world")), nil
		})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
