package contract

import "github.com/mark3labs/mcp-go/mcp"

// ToolStart names the tool that starts (or resumes) watching a pull request.
const ToolStart = "pr_monitor_start"

func startTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolStart)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolStart,
		mcp.WithDescription("Start watching a pull request until it is merged, or resume an earlier monitor of it where it left off. "+
			"Call it right after pushing, then call pr_monitor_next_step with event=ready and follow the actions it returns."),
		schemas,
		mcp.WithTitleAnnotation("Start monitoring a pull request"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(true),
	)
	return tool, nil
}
