package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call of a tool the server does not have is answered with an error that names the tools it
// has, over stdio as a host calls; a real tool is still served.
func TestAnUnknownToolsErrorNamesTheRealTools(t *testing.T) {
	srv, _, c, _, _ := tasksOverStdio(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, name := range []string{"pr_monitor_stat", "pr_monitor_start\x1b[2J" + string(make([]byte, 200))} {
		_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name}})
		require.Error(t, err, name)
		msg := err.Error()
		assert.Contains(t, msg, "unknown tool ")
		for tool := range srv.mcp.ListTools() {
			assert.Contains(t, msg, tool)
		}
		assert.NotContains(t, msg, "\x1b")
		assert.Less(t, len(msg), 400, "bounded: %s", msg)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: contract.ToolStatus}})
	require.NoError(t, err)
	assert.False(t, res.IsError)
}
