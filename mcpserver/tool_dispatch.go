package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// ToolDispatch names the tool that runs the repository dispatcher once.
const ToolDispatch = "pr_dispatch"

// DispatchInput is pr_dispatch's input.
type DispatchInput struct {
	Repo   string `json:"repo" jsonschema:"The repository: OWNER/REPO."`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Change nothing on GitHub (no label, no assignee)."`
}

// maxDispatchPRs bounds the per-pull-request decisions in one result: the payload an agent reads
// stays bounded however many pull requests are open. Spawns and hand-offs are never cut.
const maxDispatchPRs = 200

// DispatchOutput is pr_dispatch's result: the run, as `prmonitor dispatch --json` prints it.
type DispatchOutput struct {
	runner.Result
	// PRsOmitted is how many per-pull-request decisions were left out past the first 200.
	PRsOmitted int `json:"prs_omitted,omitempty"`
}

func dispatchTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolDispatch)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolDispatch,
		mcp.WithDescription("Run the repository dispatcher once, as `prmonitor dispatch --json OWNER/REPO` does: decide which worker "+
			"the open pull requests need next (spawns, each with the task for a sub-agent) and which are ready for a human "+
			"(handoffs). It sets the lock and hand-off labels and assignees unless dry_run; it never merges or closes anything. "+
			"Configuration: .prmonitor/dispatch.yaml on the repository's default branch, else the defaults."),
		schemas,
		mcp.WithTitleAnnotation("Dispatch the repository's next worker"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(false),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, nil
}

func (s *Server) handleDispatch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in DispatchInput
	if err := req.BindArguments(&in); err != nil {
		return toolError("bad arguments: " + err.Error()), nil
	}
	repo, err := dispatch.ParseRepo(in.Repo)
	if err != nil {
		return toolError(text.Error(err)), nil
	}
	tpl, err := runner.LoadTemplates("")
	if err != nil {
		return toolError(text.Error(err)), nil
	}
	gh, err := s.github(ctx)
	if err != nil {
		return toolError(githubCause(err)), nil
	}
	src, ok := gh.(runner.Source)
	if !ok {
		return toolError("this server's GitHub client cannot read a whole repository"), nil
	}
	// The configuration comes from the repository's default branch (what its writers put there),
	// never from the server's working directory: docs/security.md.
	cfg, _, err := runner.ConfigFor(ctx, src, repo, "")
	if err != nil {
		return toolError(text.Error(err)), nil
	}
	res, err := runner.Run(ctx, src, runner.Request{Repo: repo, Config: cfg, Templates: tpl, DryRun: in.DryRun, Now: s.cfg.Now()})
	if err != nil {
		if errors.Is(err, ghclient.ErrNotFound) {
			return toolError(fmt.Sprintf("no repository %s, or the token cannot see it (404): %s", repo, text.Error(err))), nil
		}
		return toolError(githubCause(err)), nil
	}
	out := DispatchOutput{Result: res}
	if n := len(out.PRs); n > maxDispatchPRs {
		out.PRs, out.PRsOmitted = out.PRs[:maxDispatchPRs], n-maxDispatchPRs
	}
	return structured(out), nil
}
