package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// maxDispatchPRs bounds the per-pull-request decisions in one result: the payload an agent reads
// stays bounded however many pull requests are open. Spawns and hand-offs are never cut.
const maxDispatchPRs = 200

func (s *Server) handleDispatch(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.DispatchInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	repo, err := dispatch.ParseRepo(in.Repo)
	if err != nil {
		return contract.ToolError(text.Error(err)), nil
	}
	tpl, err := runner.LoadTemplates("")
	if err != nil {
		return contract.ToolError(text.Error(err)), nil
	}
	gh, err := s.github(ctx)
	if err != nil {
		return contract.ToolError(contract.GitHubCause(err)), nil
	}
	src, ok := gh.(runner.Source)
	if !ok {
		return contract.ToolError("this server's GitHub client cannot read a whole repository"), nil
	}
	// The configuration comes from the repository's default branch (what its writers put there),
	// never from the server's working directory: docs/security.md.
	cfg, _, err := runner.ConfigFor(ctx, src, repo, "")
	if err != nil {
		return contract.ToolError(text.Error(err)), nil
	}
	res, err := runner.Run(ctx, src, runner.Request{Repo: repo, Config: cfg, Templates: tpl, DryRun: in.DryRun, Now: s.cfg.Now()})
	if err != nil {
		if errors.Is(err, ghclient.ErrNotFound) {
			return contract.ToolError(fmt.Sprintf("no repository %s, or the token cannot see it (404): %s", repo, text.Error(err))), nil
		}
		return contract.ToolError(contract.GitHubCause(err)), nil
	}
	out := contract.DispatchOutput{Result: res}
	if n := len(out.PRs); n > maxDispatchPRs {
		out.PRs, out.PRsOmitted = out.PRs[:maxDispatchPRs], n-maxDispatchPRs
	}
	return contract.Result(out), nil
}
