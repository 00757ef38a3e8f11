package mcpserver

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// maxStartAll bounds how many monitors one pr_monitor_start_all starts (the searches read at
// most three pages of 100).
const maxStartAll = 300

func (s *Server) handleStartAll(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StartAllInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	gh, err := s.github(ctx)
	if err != nil {
		return contract.ToolError(contract.GitHubCause(err)), nil
	}
	found, err := gh.OpenPRs(ctx, ghclient.OpenPRsQuery{Assigned: in.IncludeAssigned, ReviewRequested: in.IncludeReviewRequested})
	if err != nil {
		return contract.ToolError(contract.GitHubCause(err)), nil
	}
	out := contract.StartAllOutput{Started: []contract.StartedPR{}, Next: `pr_monitor_next_step(monitor_id="all", event="ready")`}
	for _, pr := range foundInStackOrder(found.PRs) {
		title := contract.FencedTitle(pr.Title, false)
		why := contract.SkipReason(pr, in)
		if why == "" {
			why = contract.OthersSkipReason(pr, found.Viewer)
		}
		if why != "" {
			out.Skipped = append(out.Skipped, contract.SkippedPR{PR: pr.Ref.String(), Title: title, Reason: why})
			continue
		}
		if len(out.Started) == maxStartAll {
			out.Skipped = append(out.Skipped, contract.SkippedPR{PR: pr.Ref.String(), Title: title, Reason: fmt.Sprintf("over %d monitors at once", maxStartAll)})
			continue
		}
		m, resumed, err := s.mons.Attach(pr.Ref)
		if err != nil {
			out.Skipped = append(out.Skipped, contract.SkippedPR{PR: pr.Ref.String(), Title: title, Reason: text.Error(err)})
			continue
		}
		s.watchMonitor(m)
		m.Attached(nil, s.cfg.Now(), 0)
		s.push.attached(m)
		out.Started = append(out.Started, contract.StartedPR{MonitorID: m.ID, PR: pr.Ref.String(), Title: title, Resumed: resumed})
	}
	out.Message = fmt.Sprintf("Monitoring %s of %s; %d skipped.", text.Count(len(out.Started), "open pull request", "open pull requests"),
		found.Viewer, len(out.Skipped))
	if found.Truncated {
		out.Message += fmt.Sprintf(" A search matched more than %d: only the first %d of it were read.", ghclient.SearchPage, ghclient.SearchPage)
	}
	if len(out.Started) == 0 {
		out.Next = ""
	}
	return contract.Result(contract.BoundStartAll(out, contract.MaxPayload)), nil
}
