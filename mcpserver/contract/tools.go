package contract

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
			return nil, fmt.Errorf("contract: %w", err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// ServerTools returns the tools o offers, each with handlers[its name] behind the check of its
// arguments (input.go): a front end serves the contract's tools with handlers of its own. A tool
// without a handler is an error.
func ServerTools(o ToolOptions, handlers map[string]server.ToolHandlerFunc) ([]server.ServerTool, error) {
	tools, err := Tools(o)
	if err != nil {
		return nil, err
	}
	out := make([]server.ServerTool, 0, len(tools))
	for _, t := range tools {
		h, ok := handlers[t.Name]
		if !ok {
			return nil, fmt.Errorf("contract: no handler for %s", t.Name)
		}
		check, err := newInputCheck(t)
		if err != nil {
			return nil, fmt.Errorf("contract: %w", err)
		}
		out = append(out, server.ServerTool{Tool: t, Handler: check.wrap(h)})
	}
	return out, nil
}
