package contract

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// ToolStartAll names the tool that starts watching each of the viewer's open pull requests.
const ToolStartAll = "pr_monitor_start_all"

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

// SkipReason says why a found pull request is not monitored ("" to monitor it).
func SkipReason(pr ghclient.FoundPR, in StartAllInput) string {
	switch {
	case pr.IsDraft && !in.IncludeDrafts:
		return "draft (include_drafts to monitor it)"
	case prstatus.IsDependencyBot(pr.Author.Login) && !in.IncludeDependencyBots:
		return "dependency update by " + text.ClipBytes(pr.Author.Login, 40) + " (include_dependency_bots to monitor it)"
	}
	return ""
}

// OthersSkipReason says why a pull request someone else wrote is left to an explicit
// pr_monitor_start ("" to monitor it): a monitor's tasks have the agent run, change and push the
// pull request's code with the user's credentials, so start_all takes, besides the viewer's own,
// only those of people with write access and of GitHub Apps, and no one else's fork
// (docs/security.md, "Whose pull requests are monitored").
func OthersSkipReason(pr ghclient.FoundPR, viewer string) string {
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

// BoundStartAll keeps the result within budget bytes: skipped pull requests go first, then
// started ones, from the end; Omitted counts them.
func BoundStartAll(out StartAllOutput, budget int) StartAllOutput {
	size := JSONSize(out)
	for size > budget && (len(out.Skipped) > 0 || len(out.Started) > 0) {
		if n := len(out.Skipped); n > 0 {
			size -= JSONSize(out.Skipped[n-1]) + len(",")
			out.Skipped = out.Skipped[:n-1]
		} else {
			n := len(out.Started)
			size -= JSONSize(out.Started[n-1]) + len(",")
			out.Started = out.Started[:n-1]
		}
		out.Omitted++
		if size <= budget+64 { // the estimate ignores the omitted count's own digits: measure
			size = JSONSize(out)
		}
	}
	return out
}
