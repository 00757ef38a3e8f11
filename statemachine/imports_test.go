package statemachine

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPureImports keeps the machine pure: no GitHub client, no MCP, no network, directly or
// through any dependency.
func TestPureImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"githubv4", "go-github", "mcp-go", "modelcontextprotocol", "net/http", "prstatus/ghclient", "prstatus/githubfake"} {
			require.NotContains(t, dep, banned, "statemachine must stay pure; it depends on %s", dep)
		}
	}
}
