package mcpserver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Tools returns the tools' definitions as tools/list shows them (names, descriptions, input and
// output schemas, annotations), in the order they are listed. They need no server: a second front
// end that serves the same tools with handlers of its own registers these, and the toolsnaps stay
// the contract of both.
func Tools() ([]mcp.Tool, error) {
	var tools []mcp.Tool
	for _, build := range []func() (mcp.Tool, error){startTool, startAllTool, nextStepTool, statusTool, stopTool, dispatchTool} {
		t, err := build()
		if err != nil {
			return nil, fmt.Errorf("mcpserver: %w", err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// serverTools are the tools with this server's handlers.
func (s *Server) serverTools() ([]server.ServerTool, error) {
	tools, err := Tools()
	if err != nil {
		return nil, err
	}
	handlers := map[string]server.ToolHandlerFunc{
		ToolStart: s.handleStart, ToolStartAll: s.handleStartAll, ToolNextStep: s.handleNextStep,
		ToolStatus: s.handleStatus, ToolStop: s.handleStop, ToolDispatch: s.handleDispatch,
	}
	out := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		h, ok := handlers[t.Name]
		if !ok {
			return nil, fmt.Errorf("mcpserver: no handler for %s", t.Name)
		}
		out = append(out, server.ServerTool{Tool: t, Handler: h})
	}
	return out, nil
}
