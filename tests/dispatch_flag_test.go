package tests

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

// TestDispatchIsOfferedOnlyToServersSetUpForIt: the default tool list is the monitor's; `setup HOST
// --dispatch` registers `serve --dispatch`, and only that server lists pr_dispatch.
func TestDispatchIsOfferedOnlyToServersSetUpForIt(t *testing.T) {
	needBinary(t)
	for _, dispatch := range []bool{false, true} {
		home := t.TempDir()
		env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "CLAUDE_CONFIG_DIR=", "COPILOT_HOME="}
		args := []string{"setup", "claude-code"}
		if dispatch {
			args = append(args, "--dispatch")
		}
		runBinary(t, env, args...)
		raw, err := os.ReadFile(filepath.Join(home, ".claude.json"))
		require.NoError(t, err)
		std, err := hujson.Standardize(raw)
		require.NoError(t, err)
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		require.NoError(t, json.Unmarshal(std, &cfg))
		entry := cfg.MCPServers["prmonitor"]

		cmd := exec.Command(entry.Command, entry.Args...)
		cmd.Env = append(env, "GITHUB_TOKEN="+token)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		session, err := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "1"}, nil).
			Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
		require.NoError(t, err)
		res, err := session.ListTools(ctx, nil)
		require.NoError(t, err)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		assert.Equal(t, dispatch, slices.Contains(names, "pr_dispatch"), "setup --dispatch %v: the server lists %v (args %v)", dispatch, names, entry.Args)
		assert.Contains(t, names, "pr_monitor_next_step")
		_ = session.Close()
		cancel()
	}
}
