package mcpserver

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// ToolStartAll names the tool that starts watching each of the viewer's open pull requests.
const ToolStartAll = "pr_monitor_start_all"

// maxStartAll bounds how many monitors one pr_monitor_start_all starts (the searches read at
// most three pages of 100).
const maxStartAll = 300

func startAllTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolStartAll)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolStartAll,
		mcp.WithDescription("Start (or resume) a monitor for each of your open pull requests; then loop on "+
			"pr_monitor_next_step with monitor_id=all."),
		schemas,
		mcp.WithTitleAnnotation("Monitor all my pull requests"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, nil
}

func (s *Server) handleStartAll(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in StartAllInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	gh, err := s.github(ctx)
	if err != nil {
		return toolError(githubCause(err)), nil
	}
	found, err := gh.OpenPRs(ctx, ghclient.OpenPRsQuery{Assigned: in.IncludeAssigned, ReviewRequested: in.IncludeReviewRequested})
	if err != nil {
		return toolError(githubCause(err)), nil
	}
	out := StartAllOutput{Started: []StartedPR{}, Next: `pr_monitor_next_step(monitor_id="all", event="ready")`}
	for _, pr := range foundInStackOrder(found.PRs) {
		title := title(pr.Title, false)
		why := skipReason(pr, in)
		if why == "" {
			why = othersSkipReason(pr, found.Viewer)
		}
		if why != "" {
			out.Skipped = append(out.Skipped, SkippedPR{PR: pr.Ref.String(), Title: title, Reason: why})
			continue
		}
		if len(out.Started) == maxStartAll {
			out.Skipped = append(out.Skipped, SkippedPR{PR: pr.Ref.String(), Title: title, Reason: fmt.Sprintf("over %d monitors at once", maxStartAll)})
			continue
		}
		m, resumed, err := s.attach(pr.Ref)
		if err != nil {
			out.Skipped = append(out.Skipped, SkippedPR{PR: pr.Ref.String(), Title: title, Reason: text.Error(err)})
			continue
		}
		s.watchMonitor(m)
		m.attached(nil, s.cfg.Now(), 0)
		s.push.attached(m)
		out.Started = append(out.Started, StartedPR{MonitorID: m.id, PR: pr.Ref.String(), Title: title, Resumed: resumed})
	}
	out.Message = fmt.Sprintf("Monitoring %s of %s; %d skipped.", text.Count(len(out.Started), "open pull request", "open pull requests"),
		found.Viewer, len(out.Skipped))
	if found.Truncated {
		out.Message += fmt.Sprintf(" A search matched more than %d: only the first %d of it were read.", ghclient.SearchPage, ghclient.SearchPage)
	}
	if len(out.Started) == 0 {
		out.Next = ""
	}
	return structured(boundStartAll(out, maxPayload)), nil
}

// skipReason says why a found pull request is not monitored ("" to monitor it).
func skipReason(pr ghclient.FoundPR, in StartAllInput) string {
	switch {
	case pr.IsDraft && !in.IncludeDrafts:
		return "draft (include_drafts to monitor it)"
	case prstatus.IsDependencyBot(pr.Author.Login) && !in.IncludeDependencyBots:
		return "dependency update by " + text.ClipBytes(pr.Author.Login, 40) + " (include_dependency_bots to monitor it)"
	}
	return ""
}

// othersSkipReason says why a pull request someone else wrote is left to an explicit
// pr_monitor_start ("" to monitor it): a monitor's tasks have the agent run, change and push the
// pull request's code with the user's credentials, so start_all takes, besides the viewer's own,
// only those of people with write access and of GitHub Apps, and no one else's fork
// (docs/security.md, "Whose pull requests are monitored").
func othersSkipReason(pr ghclient.FoundPR, viewer string) string {
	const byName = "; pr_monitor_start with it as pr monitors it if you mean to work on it"
	switch {
	case prstatus.IsUs(pr.Author.Login, viewer, viewer) && prstatus.OwnHead(pr.IsCrossRepository, pr.Author.Login, pr.HeadOwner):
		return ""
	case prstatus.IsUs(pr.Author.Login, viewer, viewer):
		return "yours, from a fork you do not own: its code is someone else's" + byName
	case pr.IsCrossRepository:
		return "from someone else's fork: its code is not the repository's" + byName
	case pr.Author.IsBot || (prstatus.ReviewerPolicy{}).CanReview(pr.Author, pr.AuthorAssociation):
		return ""
	}
	return "by someone without write access (" + pr.AuthorAssociation.Words() + ")" + byName
}

// boundStartAll keeps the result within budget bytes: skipped pull requests go first, then
// started ones, from the end; Omitted counts them.
func boundStartAll(out StartAllOutput, budget int) StartAllOutput {
	size := jsonSize(out)
	for size > budget && (len(out.Skipped) > 0 || len(out.Started) > 0) {
		if n := len(out.Skipped); n > 0 {
			size -= jsonSize(out.Skipped[n-1]) + len(",")
			out.Skipped = out.Skipped[:n-1]
		} else {
			n := len(out.Started)
			size -= jsonSize(out.Started[n-1]) + len(",")
			out.Started = out.Started[:n-1]
		}
		out.Omitted++
		if size <= budget+64 { // the estimate ignores the omitted count's own digits: measure
			size = jsonSize(out)
		}
	}
	return out
}
