package contract

import "github.com/mark3labs/mcp-go/mcp"

// ToolStop names the tool that stops watching a pull request, or all of them.
const ToolStop = "pr_monitor_stop"

func stopTool() (mcp.Tool, error) {
	schemas, err := toolSchemas(ToolStop)
	if err != nil {
		return mcp.Tool{}, err
	}
	tool := mcp.NewTool(ToolStop,
		mcp.WithDescription("Stop monitoring a pull request (or all of them with monitor_id=all). The history is kept; "+
			"pr_monitor_start on the same PR starts a new monitor. Nothing is done on GitHub."),
		schemas,
		mcp.WithTitleAnnotation("Stop monitoring"),
		mcp.WithReadOnlyHintAnnotation(false),
		mcp.WithDestructiveHintAnnotation(false),
		mcp.WithIdempotentHintAnnotation(true),
		mcp.WithOpenWorldHintAnnotation(false),
	)
	return tool, nil
}
