package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetupKnowsEachHostsFilesOnEverySystem pins where each host keeps its MCP servers and reads
// its instructions, on Linux, macOS and Windows, in the user's scope and a workspace's. The
// operating system is a parameter, so this runs the same everywhere. docs/hosts.md cites the
// documentation behind each row.
func TestSetupKnowsEachHostsFilesOnEverySystem(t *testing.T) {
	unix := map[string]string{"HOME": "/home/ana"}
	mac := map[string]string{"HOME": "/Users/ana"}
	win := map[string]string{"USERPROFILE": `C:\Users\ana`, "APPDATA": `C:\Users\ana\AppData\Roaming`}
	tests := []struct {
		host, goos, workspace string
		vars                  map[string]string
		config, guide         string
		servers               []string
	}{
		{"claude-code", "linux", "", unix, "/home/ana/.claude.json", "/home/ana/.claude/skills/prmonitor/SKILL.md", []string{"mcpServers"}},
		{"claude-code", "darwin", "", mac, "/Users/ana/.claude.json", "/Users/ana/.claude/skills/prmonitor/SKILL.md", []string{"mcpServers"}},
		{"claude-code", "windows", "", win, `C:\Users\ana\.claude.json`, `C:\Users\ana\.claude\skills\prmonitor\SKILL.md`, []string{"mcpServers"}},
		{"claude-code", "linux", "", map[string]string{"HOME": "/home/ana", "CLAUDE_CONFIG_DIR": "/srv/claude"},
			"/srv/claude/.claude.json", "/srv/claude/skills/prmonitor/SKILL.md", []string{"mcpServers"}},
		{"claude-code", "linux", "/work/app", unix, "/work/app/.mcp.json", "/work/app/.claude/skills/prmonitor/SKILL.md", []string{"mcpServers"}},
		{"claude-code", "windows", `D:\src\app`, win, `D:\src\app\.mcp.json`, `D:\src\app\.claude\skills\prmonitor\SKILL.md`, []string{"mcpServers"}},

		{"copilot-cli", "linux", "", unix, "/home/ana/.copilot/mcp-config.json", "/home/ana/.copilot/skills/prmonitor/SKILL.md", []string{"mcpServers"}},
		{"copilot-cli", "darwin", "", mac, "/Users/ana/.copilot/mcp-config.json", "/Users/ana/.copilot/skills/prmonitor/SKILL.md", []string{"mcpServers"}},
		{"copilot-cli", "windows", "", win, `C:\Users\ana\.copilot\mcp-config.json`, `C:\Users\ana\.copilot\skills\prmonitor\SKILL.md`, []string{"mcpServers"}},
		{"copilot-cli", "linux", "", map[string]string{"HOME": "/home/ana", "COPILOT_HOME": "/cfg/copilot"},
			"/cfg/copilot/mcp-config.json", "/cfg/copilot/skills/prmonitor/SKILL.md", []string{"mcpServers"}},

		{"vscode", "linux", "", unix, "/home/ana/.config/Code/User/mcp.json", "/home/ana/.config/Code/User/prompts/prmonitor.instructions.md", []string{"servers"}},
		{"vscode", "linux", "", map[string]string{"HOME": "/home/ana", "XDG_CONFIG_HOME": "/xdg"},
			"/xdg/Code/User/mcp.json", "/xdg/Code/User/prompts/prmonitor.instructions.md", []string{"servers"}},
		{"vscode", "linux", "", map[string]string{"HOME": "/home/ana", "XDG_CONFIG_HOME": "relative/is/ignored"},
			"/home/ana/.config/Code/User/mcp.json", "/home/ana/.config/Code/User/prompts/prmonitor.instructions.md", []string{"servers"}},
		{"vscode", "darwin", "", mac, "/Users/ana/Library/Application Support/Code/User/mcp.json",
			"/Users/ana/Library/Application Support/Code/User/prompts/prmonitor.instructions.md", []string{"servers"}},
		{"vscode", "windows", "", win, `C:\Users\ana\AppData\Roaming\Code\User\mcp.json`,
			`C:\Users\ana\AppData\Roaming\Code\User\prompts\prmonitor.instructions.md`, []string{"servers"}},
		{"vscode", "windows", "", map[string]string{"USERPROFILE": `C:\Users\ana`}, `C:\Users\ana\AppData\Roaming\Code\User\mcp.json`,
			`C:\Users\ana\AppData\Roaming\Code\User\prompts\prmonitor.instructions.md`, []string{"servers"}},
		{"vscode", "darwin", "/Users/ana/app", mac, "/Users/ana/app/.vscode/mcp.json", "/Users/ana/app/.github/instructions/prmonitor.instructions.md", []string{"servers"}},
		{"vscode", "windows", `C:\src\app`, win, `C:\src\app\.vscode\mcp.json`, `C:\src\app\.github\instructions\prmonitor.instructions.md`, []string{"servers"}},

		{"cursor", "linux", "", unix, "/home/ana/.cursor/mcp.json", "", []string{"mcpServers"}},
		{"cursor", "darwin", "", mac, "/Users/ana/.cursor/mcp.json", "", []string{"mcpServers"}},
		{"cursor", "windows", "", win, `C:\Users\ana\.cursor\mcp.json`, "", []string{"mcpServers"}},
		{"cursor", "linux", "/work/app", unix, "/work/app/.cursor/mcp.json", "/work/app/.cursor/rules/prmonitor.mdc", []string{"mcpServers"}},
		{"cursor", "windows", `C:\src\app`, win, `C:\src\app\.cursor\mcp.json`, `C:\src\app\.cursor\rules\prmonitor.mdc`, []string{"mcpServers"}},
	}
	for _, tc := range tests {
		t.Run(tc.host+"/"+tc.goos+"/"+tc.workspace, func(t *testing.T) {
			h, ok := findHost(tc.host)
			require.True(t, ok)
			f, err := h.locate(locator{goos: tc.goos, getenv: func(k string) string { return tc.vars[k] }, workspace: tc.workspace})
			require.NoError(t, err)
			assert.Equal(t, tc.config, f.config)
			assert.Equal(t, tc.guide, f.guide)
			assert.Equal(t, tc.servers, f.servers)
			if tc.workspace == "" {
				assert.NotEmpty(t, f.detect, "setup all can tell whether the host is here")
			}
		})
	}
}

// TestSetupRefusesAHomeItCannotFind: no home directory is an error, never a file written
// relative to wherever setup happens to run.
func TestSetupRefusesAHomeItCannotFind(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, h := range hosts {
			_, err := h.locate(locator{goos: goos, getenv: func(k string) string {
				return map[string]string{"HOME": "relative", "USERPROFILE": "relative"}[k]
			}})
			assert.Error(t, err, "%s on %s", h.name, goos)
		}
	}
}

// TestSetupEntriesAreEachHostsShape: the entry each host documents, with no token in it.
func TestSetupEntriesAreEachHostsShape(t *testing.T) {
	want := map[string]mcpEntry{
		"claude-code": {Type: "stdio", Command: "/bin/pm", Args: []string{"serve"}},
		"copilot-cli": {Type: "local", Command: "/bin/pm", Args: []string{"serve"}, Tools: []string{"*"}},
		"vscode":      {Type: "stdio", Command: "/bin/pm", Args: []string{"serve"}},
		"cursor":      {Command: "/bin/pm", Args: []string{"serve"}},
	}
	require.Len(t, hosts, len(want))
	for _, h := range hosts {
		assert.Equal(t, want[h.name], h.entry("/bin/pm"), h.name)
	}
}
