package front

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// maxStartAll bounds how many monitors one pr_monitor_start_all starts, as the embedded server's.
const maxStartAll = 300

// pr_monitor_start_all: one search for the user's open pull requests (a worker runs it), then a
// SignalWithStart per pull request. Only the user's own pull requests are found (author:USER);
// those assigned or awaiting their review are found when asked, and started only when the user
// opened them: a monitor works on its owner's pull requests, and only when the owner has write
// access to the repository (the workers act with the deployment's GitHub App's access).
func (f *Front) handleStartAll(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.StartAllInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	user := userOf(ctx)
	found, err := f.starter.FindOpenPRs(ctx, ghclient.OpenPRsQuery{For: user.Login, Assigned: in.IncludeAssigned, ReviewRequested: in.IncludeReviewRequested})
	if err != nil {
		return contract.ToolError(text.Error(err)), nil
	}
	out := contract.StartAllOutput{Started: []contract.StartedPR{}, Next: `pr_monitor_next_step(monitor_id="all", event="ready")`}
	for _, pr := range found.PRs {
		title := contract.FencedTitle(pr.Title, false)
		skip := func(why string) {
			out.Skipped = append(out.Skipped, contract.SkippedPR{PR: pr.Ref.String(), Title: title, Reason: why})
		}
		if why := contract.SkipReason(pr, in); why != "" {
			skip(why)
			continue
		}
		if monitorwf.NormalizeOwner(pr.Author.Login) != monitorwf.NormalizeOwner(user.Login) {
			skip("opened by someone else: a monitor works on its owner's pull requests")
			continue
		}
		if !pr.AuthorAssociation.CanWrite() {
			skip("you have no write access to its repository: this deployment works only on pull requests by people with write access")
			continue
		}
		if len(out.Started) == maxStartAll {
			skip(fmt.Sprintf("over %d monitors at once", maxStartAll))
			continue
		}
		resumed, err := f.startQuietly(ctx, pr.Ref, user)
		if err != nil {
			skip(text.Error(err))
			continue
		}
		out.Started = append(out.Started, contract.StartedPR{MonitorID: monitorwf.WorkflowID(pr.Ref), PR: pr.Ref.String(), Title: title, Resumed: resumed})
	}
	out.Message = fmt.Sprintf("Monitoring %s of %s; %d skipped.", text.Count(len(out.Started), "open pull request", "open pull requests"),
		user.Login, len(out.Skipped))
	if found.Truncated {
		out.Message += fmt.Sprintf(" A search matched more than %d: only the first %d of it were read.", ghclient.SearchPage, ghclient.SearchPage)
	}
	if len(out.Started) == 0 {
		out.Next = ""
	}
	return contract.Result(contract.BoundStartAll(out, contract.MaxPayload)), nil
}

// startQuietly starts ref's monitor for user without waiting for its read (the search already
// said the pull request is the user's and open).
func (f *Front) startQuietly(ctx context.Context, ref prstatus.PRRef, user monitorwf.Owner) (resumed bool, err error) {
	if running, err := f.claim(ctx, monitorwf.WorkflowID(ref), user); err != nil || running {
		return running, err
	}
	return false, f.starter.Notify(ctx, ref, monitorwf.Change{Kind: "start", Owner: user.Key(), OwnerLogin: user.Login})
}
