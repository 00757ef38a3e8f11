package mcpserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

func (s *Server) handleStop(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StopInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	if in.MonitorID == "" {
		return contract.ToolError("monitor_id is required (a monitor id, or all)"), nil
	}
	var targets []*monitor.Monitor
	var skipped []string
	if in.MonitorID == "all" {
		targets, skipped = s.mons.Every()
	} else {
		m, ok, err := s.mons.Lookup(in.MonitorID)
		if err != nil {
			return contract.ToolError(fmt.Sprintf("monitor %q cannot be stopped here: %s", in.MonitorID, text.Error(err))), nil
		}
		if !ok {
			return contract.ToolError(contract.UnknownMonitor(in.MonitorID)), nil
		}
		targets = []*monitor.Monitor{m}
	}
	out := contract.StopOutput{Action: "stop", Stopped: []string{}}
	for _, m := range targets {
		if m.IsEnded() {
			continue
		}
		if _, err := s.end(m); err != nil {
			return contract.ToolError(fmt.Sprintf("stop %s: %v", m.ID, err)), nil
		}
		out.Stopped = append(out.Stopped, m.ID)
	}
	out.Message = "Stopped monitoring " + strings.Join(out.Stopped, ", ") + "."
	if len(out.Stopped) == 0 {
		out.Message = "Nothing was being monitored."
	}
	if len(skipped) > 0 {
		out.Message += " Not stopped: " + strings.Join(skipped, "; ") + "."
	}
	return contract.Result(out), nil
}
