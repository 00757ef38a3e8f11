package mcpserver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ToolOptions says which tools a server offers.
type ToolOptions struct {
	// Dispatch offers pr_dispatch, the repository dispatcher (prmonitor serve --dispatch). Off by
	// default: most agents never dispatch, and every tool's schemas weigh on the agent's context.
	Dispatch bool
}

// Tools returns the definitions of the tools o offers as tools/list shows them (names,
// descriptions, input and output schemas, annotations). They need no server: a second front end
// that serves the same tools with handlers of its own registers these, and the toolsnaps stay the
// contract of both.
func Tools(o ToolOptions) ([]mcp.Tool, error) {
	builds := []func() (mcp.Tool, error){startTool, startAllTool, nextStepTool, statusTool, stopTool}
	if o.Dispatch {
		builds = append(builds, dispatchTool)
	}
	var tools []mcp.Tool
	for _, build := range builds {
		t, err := build()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// serverTools are the tools with this server's handlers, each behind the check of its arguments
// (input.go).
func (s *Server) serverTools() ([]server.ServerTool, error) {
	return ServerTools(ToolOptions{Dispatch: s.cfg.Dispatch}, map[string]server.ToolHandlerFunc{
		ToolStart: s.handleStart, ToolStartAll: s.handleStartAll, ToolNextStep: s.handleNextStep,
		ToolStatus: s.handleStatus, ToolStop: s.handleStop, ToolDispatch: s.handleDispatch,
	})
}
