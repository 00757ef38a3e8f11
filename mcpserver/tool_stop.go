package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// ToolStop names the tool that stops watching a pull request, or all of them.
const ToolStop = "pr_monitor_stop"

func stopTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolStop)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolStop,
		mcp.WithDescription("Stop monitoring a pull request (or all of them with monitor_id=all). The history is kept; "+
			"pr_monitor_start on the same PR starts a new monitor. Nothing is done on GitHub."),
		schemas,
		mcp.WithTitleAnnotation("Stop monitoring"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	return tool, nil
}

func (s *Server) handleStop(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in StopInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	if in.MonitorID == "" {
		return toolError("monitor_id is required (a monitor id, or all)"), nil
	}
	var targets []*monitor
	var skipped []string
	if in.MonitorID == "all" {
		targets, skipped = s.everyMonitor()
	} else {
		m, ok, err := s.lookup(in.MonitorID)
		if err != nil {
			return toolError(fmt.Sprintf("monitor %q cannot be stopped here: %s", in.MonitorID, text.Error(err))), nil
		}
		if !ok {
			return toolError(fmt.Sprintf("unknown monitor %q", in.MonitorID)), nil
		}
		targets = []*monitor{m}
	}
	out := StopOutput{Action: "stop", Stopped: []string{}}
	for _, m := range targets {
		if m.isEnded() {
			continue
		}
		if _, err := s.end(m); err != nil {
			return toolError(fmt.Sprintf("stop %s: %v", m.id, err)), nil
		}
		out.Stopped = append(out.Stopped, m.id)
	}
	out.Message = "Stopped monitoring " + strings.Join(out.Stopped, ", ") + "."
	if len(out.Stopped) == 0 {
		out.Message = "Nothing was being monitored."
	}
	if len(skipped) > 0 {
		out.Message += " Not stopped: " + strings.Join(skipped, "; ") + "."
	}
	return structured(out), nil
}
