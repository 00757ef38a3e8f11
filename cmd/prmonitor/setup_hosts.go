package main

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// The agent hosts setup knows: where each keeps its MCP servers and reads an agent's instructions,
// per operating system and scope, and the server entry it expects. docs/hosts.md has the table and
// the documentation each row comes from.

// serverName is the key prmonitor is registered under in every host.
const serverName = "prmonitor"

// host is one agent host.
type host struct {
	name  string // as typed: "claude-code"
	title string // as its users call it: "Claude Code"
	// workspace tells whether setup can write a project's files for it (--workspace).
	workspace bool
	// locate finds its files for one operating system and scope.
	locate func(l locator) (hostFiles, error)
	// entry is the server's entry in the host's MCP configuration, for the command to run.
	entry func(command string) mcpEntry
}

// mcpEntry is a stdio server's entry, its keys in the order the hosts' documentation writes them.
type mcpEntry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Tools   []string `json:"tools,omitempty"`
}

// hostFiles is where one host, on one system and in one scope, keeps what setup writes.
type hostFiles struct {
	config  string   // the MCP configuration file
	servers []string // the path of the object that maps server names to entries
	guide   string   // the agent instructions file setup installs ("": the host reads none setup can write)
	format  guideFormat
	// detect are paths whose presence means the host is installed (`setup all` skips the others).
	detect []string
	// note is said after setup for this host: what the user still has to know or do; tip, on a
	// line of its own, what more the host can do with prmonitor.
	note, tip string
	// root is the folder setup's files hang from (the workspace, the home directory, or a folder
	// an environment variable names): --uninstall removes the empty folders it leaves up to it,
	// never it.
	root string
}

// hosts are every host, in the order `setup all` goes through them.
var hosts = []host{
	{name: "claude-code", title: "Claude Code", workspace: true, locate: claudeCodeFiles, entry: stdioEntry(true)},
	{name: "copilot-cli", title: "GitHub Copilot CLI", locate: copilotCLIFiles, entry: copilotEntry},
	{name: "vscode", title: "VS Code", workspace: true, locate: vscodeFiles, entry: stdioEntry(true)},
	{name: "cursor", title: "Cursor", workspace: true, locate: cursorFiles, entry: stdioEntry(false)},
}

func findHost(name string) (host, bool) {
	for _, h := range hosts {
		if h.name == name {
			return h, true
		}
	}
	return host{}, false
}

func hostNames() string {
	names := make([]string, len(hosts))
	for i, h := range hosts {
		names[i] = h.name
	}
	return strings.Join(names, ", ")
}

// stdioEntry is the common shape: {"type": "stdio", "command": ..., "args": ["serve"]}. Cursor's
// documented entries have no type (a command means stdio).
func stdioEntry(typed bool) func(string) mcpEntry {
	return func(command string) mcpEntry {
		e := mcpEntry{Command: command, Args: []string{"serve"}}
		if typed {
			e.Type = "stdio"
		}
		return e
	}
}

// copilotEntry is Copilot CLI's shape: a "local" server and the tools it may call ("*": all).
func copilotEntry(command string) mcpEntry {
	return mcpEntry{Type: "local", Command: command, Args: []string{"serve"}, Tools: []string{"*"}}
}

// locator answers where things are on one operating system (goos, as runtime.GOOS spells it),
// from the environment (getenv). It never reads the machine it runs on, so every system's layout
// is tested everywhere.
type locator struct {
	goos   string
	getenv func(string) string
	// workspace is the absolute project directory for a workspace setup, "" for the user's.
	workspace string
}

func (l locator) windows() bool { return l.goos == "windows" }

// join joins path elements with the system's separator.
func (l locator) join(elem ...string) string {
	if !l.windows() {
		return path.Join(elem...)
	}
	parts := make([]string, 0, len(elem))
	for i, e := range elem {
		if i > 0 {
			e = strings.TrimLeft(e, `\/`)
		}
		if e = strings.TrimRight(e, `\/`); e != "" {
			parts = append(parts, strings.ReplaceAll(e, "/", `\`))
		}
	}
	return strings.Join(parts, `\`)
}

func (l locator) abs(p string) bool {
	if l.windows() {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return path.IsAbs(p)
}

// env is an environment variable holding an absolute path, "" otherwise (a relative one is
// ignored, as the XDG specification asks).
func (l locator) env(name string) string {
	if v := l.getenv(name); l.abs(v) {
		return v
	}
	return ""
}

// home is the user's home directory: USERPROFILE on Windows (what the hosts, written in Node.js
// and Electron, take as ~), HOME elsewhere.
func (l locator) home() (string, error) {
	if l.windows() {
		if h := l.env("USERPROFILE"); h != "" {
			return h, nil
		}
		if h := l.getenv("HOMEDRIVE") + l.getenv("HOMEPATH"); l.abs(h) {
			return h, nil
		}
		return "", errors.New("USERPROFILE is not set to an absolute path")
	}
	if h := l.env("HOME"); h != "" {
		return h, nil
	}
	return "", errors.New("HOME is not set to an absolute path")
}

// appConfig is where desktop applications keep their settings: %APPDATA% (Roaming) on Windows,
// ~/Library/Application Support on macOS, $XDG_CONFIG_HOME or ~/.config elsewhere. Electron's
// appData, under which VS Code keeps its "User" folder.
func (l locator) appConfig() (string, error) {
	switch l.goos {
	case "windows":
		if d := l.env("APPDATA"); d != "" {
			return d, nil
		}
	case "darwin":
	default:
		if d := l.env("XDG_CONFIG_HOME"); d != "" {
			return d, nil
		}
	}
	home, err := l.home()
	if err != nil {
		return "", err
	}
	switch l.goos {
	case "windows":
		return l.join(home, "AppData", "Roaming"), nil
	case "darwin":
		return l.join(home, "Library", "Application Support"), nil
	}
	return l.join(home, ".config"), nil
}

// claudeChannelTip says how to let prmonitor tell the agent when a pull request needs it
// (docs/hosts.md, "Told, not asked").
const claudeChannelTip = "so that the agent is told when a pull request needs it, and need not wait on calls: start Claude Code with " +
	"claude --dangerously-load-development-channels server:prmonitor (channels, a research preview: Claude Code v2.1.80 or later, claude.ai login)"

// claudeCodeFiles: the user's servers are the top-level "mcpServers" of ~/.claude.json (user
// scope), skills are ~/.claude/skills/NAME/SKILL.md; CLAUDE_CONFIG_DIR moves both. A project's
// servers are its .mcp.json, its skills .claude/skills/.
func claudeCodeFiles(l locator) (hostFiles, error) {
	f := hostFiles{servers: []string{"mcpServers"}, format: formatSkill,
		note: "type /mcp to see prmonitor connected", tip: claudeChannelTip}
	if l.workspace != "" {
		f.config, f.root = l.join(l.workspace, ".mcp.json"), l.workspace
		f.guide = l.join(l.workspace, ".claude", "skills", serverName, "SKILL.md")
		f.note += " (Claude Code asks you to approve a project's servers once)"
		return f, nil
	}
	if dir := l.env("CLAUDE_CONFIG_DIR"); dir != "" {
		f.config, f.guide = l.join(dir, ".claude.json"), l.join(dir, "skills", serverName, "SKILL.md")
		f.detect, f.root = []string{dir}, dir
		return f, nil
	}
	home, err := l.home()
	if err != nil {
		return f, err
	}
	f.config, f.root = l.join(home, ".claude.json"), home
	f.guide = l.join(home, ".claude", "skills", serverName, "SKILL.md")
	f.detect = []string{f.config, l.join(home, ".claude")}
	f.note += " (a Claude Code that was running may write over this change: close it and run setup again)"
	return f, nil
}

// copilotCLIFiles: ~/.copilot/mcp-config.json ("mcpServers") and personal skills in
// ~/.copilot/skills; COPILOT_HOME moves the directory.
func copilotCLIFiles(l locator) (hostFiles, error) {
	f := hostFiles{servers: []string{"mcpServers"}, format: formatSkill,
		note: "type /mcp to see prmonitor"}
	// Only the user's configuration: host.workspace is false.
	dir := l.env("COPILOT_HOME")
	f.root = dir
	if dir == "" {
		home, err := l.home()
		if err != nil {
			return f, err
		}
		dir, f.root = l.join(home, ".copilot"), home
	}
	f.config = l.join(dir, "mcp-config.json")
	f.guide = l.join(dir, "skills", serverName, "SKILL.md")
	f.detect = []string{dir}
	return f, nil
}

// vscodeFiles: the user's mcp.json ("servers") in the default profile's User folder, instructions
// in its prompts folder; a workspace's .vscode/mcp.json and .github/instructions.
func vscodeFiles(l locator) (hostFiles, error) {
	f := hostFiles{servers: []string{"servers"}, format: formatInstructions,
		note: "run \"MCP: List Servers\" to see prmonitor"}
	if l.workspace != "" {
		f.config, f.root = l.join(l.workspace, ".vscode", "mcp.json"), l.workspace
		f.guide = l.join(l.workspace, ".github", "instructions", serverName+".instructions.md")
		return f, nil
	}
	base, err := l.appConfig()
	if err != nil {
		return f, err
	}
	user := l.join(base, "Code", "User")
	// Empty folders go up to the home directory, or to the folder APPDATA or XDG_CONFIG_HOME names.
	f.root = base
	if home, err := l.home(); err == nil && base != l.env("APPDATA") && base != l.env("XDG_CONFIG_HOME") {
		f.root = home
	}
	f.config = l.join(user, "mcp.json")
	f.guide = l.join(user, "prompts", serverName+".instructions.md")
	f.detect = []string{user}
	f.note += " (this is the default profile's configuration; VS Code Insiders keeps its own)"
	return f, nil
}

// cursorFiles: ~/.cursor/mcp.json and a project's .cursor/mcp.json ("mcpServers"); rules exist
// only in a project (.cursor/rules/NAME.mdc): the user's own rules live in Cursor's settings, which
// no file holds.
func cursorFiles(l locator) (hostFiles, error) {
	f := hostFiles{servers: []string{"mcpServers"}, format: formatCursorRule,
		note: "find prmonitor in Cursor's MCP settings"}
	if l.workspace != "" {
		f.config, f.root = l.join(l.workspace, ".cursor", "mcp.json"), l.workspace
		f.guide = l.join(l.workspace, ".cursor", "rules", serverName+".mdc")
		return f, nil
	}
	home, err := l.home()
	if err != nil {
		return f, err
	}
	dir := l.join(home, ".cursor")
	f.config, f.root = l.join(dir, "mcp.json"), home
	f.detect = []string{dir}
	f.note += "; Cursor reads rules only from a project: 'prmonitor setup cursor --workspace DIR' installs the rule there"
	return f, nil
}

// describeScope names the scope in messages.
func (l locator) describeScope() string {
	if l.workspace != "" {
		return fmt.Sprintf("the workspace %s", l.workspace)
	}
	return "your user configuration"
}
