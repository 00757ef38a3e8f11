package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

// TestSetupThenTheHostStartsTheServer is setup end to end, as each host's user runs it: the built
// binary's `setup HOST` writes the host's configuration in a temporary home; then, as the host
// does, the test reads the entry back, starts the command it names over stdio with an MCP client,
// and finds the prompts that teach the loop. A second run changes nothing.
func TestSetupThenTheHostStartsTheServer(t *testing.T) {
	needBinary(t)
	tests := []struct {
		host, config, protocol string
		servers                string
	}{
		{"claude-code", ".claude.json", "2025-11-25", "mcpServers"},
		{"copilot-cli", ".copilot/mcp-config.json", "2026-07-28", "mcpServers"},
		{"vscode", ".config/Code/User/mcp.json", "2025-11-25", "servers"},
		{"cursor", ".cursor/mcp.json", "2026-07-28", "mcpServers"},
	}
	for _, tc := range tests {
		t.Run(tc.host, func(t *testing.T) {
			home := t.TempDir()
			env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=", "XDG_STATE_HOME=", "CLAUDE_CONFIG_DIR=", "COPILOT_HOME="}
			out := runBinary(t, env, "setup", tc.host)
			assert.Contains(t, out, "registered the MCP server \"prmonitor\"")
			assert.Contains(t, runBinary(t, env, "setup", tc.host), "already set up, nothing changed")

			raw, err := os.ReadFile(filepath.Join(home, tc.config))
			require.NoError(t, err)
			std, err := hujson.Standardize(raw)
			require.NoError(t, err)
			var cfg map[string]map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			require.NoError(t, json.Unmarshal(std, &cfg))
			entry := cfg[tc.servers]["prmonitor"]
			require.Equal(t, binary, entry.Command, "the host runs this binary, by its absolute path")
			require.Equal(t, []string{"serve"}, entry.Args)
			assert.NotContains(t, string(raw), token, "no token in the configuration")

			// What the host does: start the command and speak MCP to it.
			cmd := exec.Command(entry.Command, entry.Args...)
			cmd.Env = append(env, "GITHUB_TOKEN="+token)
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			client := sdk.NewClient(&sdk.Implementation{Name: tc.host, Version: "1"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
				&sdk.ClientSessionOptions{ProtocolVersion: tc.protocol})
			require.NoError(t, err, stderr.String())
			defer func() { _ = session.Close() }()
			prompts, err := session.ListPrompts(ctx, &sdk.ListPromptsParams{})
			require.NoError(t, err)
			var names []string
			for _, p := range prompts.Prompts {
				names = append(names, p.Name)
			}
			assert.ElementsMatch(t, []string{"watch_pr", "watch_all"}, names)
			got, err := session.GetPrompt(ctx, &sdk.GetPromptParams{Name: "watch_pr", Arguments: map[string]string{"pr": "acme/widgets#7"}})
			require.NoError(t, err)
			require.Len(t, got.Messages, 1)
			assert.Contains(t, got.Messages[0].Content.(*sdk.TextContent).Text, `pr_monitor_start(pr="acme/widgets#7")`)
			assert.NotContains(t, stderr.String(), token)
		})
	}
}

// runBinary runs the built prmonitor with env and returns its stdout; it must succeed.
func runBinary(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "prmonitor %s: %s", strings.Join(args, " "), stderr.String())
	return stdout.String()
}
