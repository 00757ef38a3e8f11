package effects

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEffectsKnowNothingOfMCP: a Temporal activity links this package without an MCP server, so
// neither it nor anything it imports may import mcp-go or the MCP server.
func TestEffectsKnowNothingOfMCP(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/prmonitor/prmonitor/statemachine", "the list is the package's imports")
	for _, d := range deps {
		assert.False(t, strings.HasPrefix(d, "github.com/mark3labs/mcp-go"), "effects imports %s", d)
		assert.False(t, strings.HasPrefix(d, "github.com/modelcontextprotocol/"), "effects imports %s", d)
		assert.NotEqual(t, "github.com/prmonitor/prmonitor/mcpserver", d, "effects imports the MCP server")
	}
}
