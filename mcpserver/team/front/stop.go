package front

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// pr_monitor_stop: the Stop signal to one of the user's monitors, or to each (monitor_id=all).
// The workflow returns and its history stays; nothing is done on GitHub.
func (f *Front) handleStop(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StopInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	if in.MonitorID == "" {
		return contract.ToolError("monitor_id is required (a monitor id, or all)"), nil
	}
	user := userOf(ctx)
	var targets []string
	if in.MonitorID == "all" {
		ids, _, err := monitorwf.List(ctx, f.cfg.Client, f.cfg.Namespace, monitorwf.ListQuery{Owner: user})
		if err != nil {
			return contract.ToolError(text.Error(err)), nil
		}
		targets = ids
	} else {
		found, err := f.owned(ctx, in.MonitorID, user)
		if err != nil {
			return f.ownedError(in.MonitorID, err), nil
		}
		if found.Running {
			targets = []string{found.ID}
		}
	}
	out := contract.StopOutput{Action: "stop", Stopped: []string{}}
	for _, id := range targets {
		if err := monitorwf.Stop(ctx, f.cfg.Client, id); err != nil {
			return contract.ToolError(fmt.Sprintf("stop %s: %s", id, text.Error(err))), nil
		}
		out.Stopped = append(out.Stopped, id)
	}
	out.Message = "Stopped monitoring " + strings.Join(out.Stopped, ", ") + "."
	if len(out.Stopped) == 0 {
		out.Message = "Nothing was being monitored."
	}
	return contract.Result(out), nil
}
