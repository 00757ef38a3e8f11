package contract

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
)

// ToolDispatch names the tool that runs the repository dispatcher once.
const ToolDispatch = "pr_dispatch"

// DispatchInput is pr_dispatch's input.
type DispatchInput struct {
	Repo   string `json:"repo" jsonschema:"The repository: OWNER/REPO."`
	DryRun bool   `json:"dry_run,omitempty" jsonschema:"Change nothing on GitHub (no label, no assignee)."`
}

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
