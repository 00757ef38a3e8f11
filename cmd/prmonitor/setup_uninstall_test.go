package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tree lists every file and folder under dir (relative, folders ending in /).
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	}))
	sort.Strings(out)
	return out
}

// setupScopes are the ways a host is set up: the user's configuration, and a project's for the
// hosts that have one.
func setupScopes() []struct{ name, host, workspace string } {
	var out []struct{ name, host, workspace string }
	for _, h := range hosts {
		out = append(out, struct{ name, host, workspace string }{h.name, h.name, ""})
		if h.workspace {
			out = append(out, struct{ name, host, workspace string }{h.name + " --workspace", h.name, "project"})
		}
	}
	return out
}

// On a machine where the host has nothing yet, setup then --uninstall leaves nothing behind: the
// files setup made are deleted (not left as empty skeletons), the folders it made go, and no
// backup is written, there being nothing of the user's to keep.
func TestSetupThenUninstallLeavesNoTraceOnAFreshMachine(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		for _, sc := range setupScopes() {
			t.Run(goos+"/"+sc.name, func(t *testing.T) {
				home := t.TempDir()
				args := []string{sc.host}
				if sc.workspace != "" {
					project := filepath.Join(home, sc.workspace)
					require.NoError(t, os.Mkdir(project, 0o755))
					args = append(args, "--workspace", project, "--command", "prmonitor")
				}
				was := tree(t, home)
				res := runSetupIn(t, goos, home, args...)
				require.Equal(t, exitOK, res.code, res.stderr)
				require.NotEqual(t, was, tree(t, home))

				res = runSetupIn(t, goos, home, append(args, "--uninstall")...)
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Equal(t, was, tree(t, home), "nothing left:\n%s", res.stdout)
				assert.Contains(t, res.stdout, "and its file (nothing else is in it)")
				if sc.host != "cursor" || sc.workspace != "" {
					assert.Contains(t, res.stdout, "removed the folder, left empty: ")
				}
			})
		}
	}
}

// However often setup runs, each file it changes has one backup: the file as it was before setup
// first changed it. --uninstall puts the user's files back from them: an instructions file that
// replaced one of the user's, and a configuration in which nothing but prmonitor's entry changed.
func TestSetupKeepsOneBackupPerFile(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".claude.json")
	skill := filepath.Join(home, ".claude", "skills", "prmonitor", "SKILL.md")
	original := existingConfig("claude-code")
	mine := "---\nname: prmonitor\ndescription: my own notes\n---\n"
	require.NoError(t, os.WriteFile(cfg, []byte(original), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Dir(skill), 0o755))
	require.NoError(t, os.WriteFile(skill, []byte(mine), 0o644))

	for _, args := range [][]string{
		{"claude-code"},
		{"claude-code", "--command", "/usr/local/bin/prmonitor"}, // an update
		{"claude-code", "--uninstall"},
		{"claude-code"},
	} {
		res := runSetupIn(t, "linux", home, args...)
		require.Equal(t, exitOK, res.code, "%v: %s", args, res.stderr)
		var baks []string
		for _, p := range tree(t, home) {
			if strings.Contains(p, ".bak") {
				baks = append(baks, p)
			}
		}
		if args[len(args)-1] == "--uninstall" {
			assert.Empty(t, baks, "both files are back as they were")
			got, err := os.ReadFile(cfg)
			require.NoError(t, err)
			assert.Equal(t, original, string(got), "byte for byte")
			continue
		}
		assert.Equal(t, []string{".claude.json.prmonitor.bak", ".claude/skills/prmonitor/SKILL.md.prmonitor.bak"}, baks, "%v", args)
		b, err := os.ReadFile(cfg + ".prmonitor.bak")
		require.NoError(t, err)
		assert.Equal(t, original, string(b), "%v: the backup is the file before setup first changed it", args)
	}

	res := runSetupIn(t, "linux", home, "claude-code", "--uninstall")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "removed the agent skill, and put back the file it had replaced: "+skill)
	got, err := os.ReadFile(skill)
	require.NoError(t, err)
	assert.Equal(t, mine, string(got), "the user's own file is back")
	got, err = os.ReadFile(cfg)
	require.NoError(t, err)
	assert.Equal(t, original, string(got))
	assert.Contains(t, res.stdout, `removed the MCP server "prmonitor", and put back the file as it was before setup first changed it: `+cfg)
	assert.Equal(t, []string{".claude.json", ".claude/", ".claude/skills/", ".claude/skills/prmonitor/",
		".claude/skills/prmonitor/SKILL.md"}, tree(t, home))
}

// pastTense matches a report that says a change was made.
var pastTenseWord = regexp.MustCompile(`\b(registered|installed|updated|removed|deleted)\b`)

// A dry run says what setup would do, in the conditional, and writes nothing.
func TestSetupDryRunSpeaksInTheConditional(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	require.NoError(t, os.Mkdir(project, 0o755))
	args := []string{"vscode", "--workspace", project, "--command", "prmonitor"}

	was := snapshot(t, home)
	res := runSetupIn(t, "linux", home, append(args, "--dry-run")...)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, was, snapshot(t, home))
	assert.Contains(t, res.stdout, `# vscode: would register the MCP server "prmonitor"`)
	assert.Contains(t, res.stdout, "# vscode: would install the agent instructions")
	assert.NotRegexp(t, pastTenseWord, res.stdout)

	require.Equal(t, exitOK, runSetupIn(t, "linux", home, args...).code)
	was = snapshot(t, home)
	res = runSetupIn(t, "linux", home, append(args, "--uninstall", "--dry-run")...)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, was, snapshot(t, home))
	assert.Contains(t, res.stdout, `# vscode: would remove the MCP server "prmonitor" and its file (nothing else is in it)`)
	assert.Contains(t, res.stdout, "# vscode: would remove the agent instructions")
	for _, dir := range []string{".vscode", ".github/instructions", ".github"} {
		assert.Contains(t, res.stdout, "# vscode: would remove the folder "+filepath.Join(project, dir)+", left empty")
	}
	assert.NotRegexp(t, pastTenseWord, res.stdout)

	res = runSetupIn(t, "linux", home, append(args, "--uninstall")...)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, []string{"project/"}, tree(t, home), "what the dry run said is what was done")
}

// A workspace is a repository anyone may have written: a symbolic link planted in it, to a folder
// or a file of the user's, is refused, and nothing anywhere is written.
func TestSetupRefusesASymbolicLinkInTheWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	tests := []struct {
		name, host, link string
		dir              bool // the link points at a folder
	}{
		{"the configuration is a link", "vscode", ".vscode/mcp.json", false},
		{"its folder is a link", "vscode", ".vscode", true},
		{"the instructions' folder is a link", "vscode", ".github/instructions", true},
		{"a folder on the way is a link", "claude-code", ".claude", true},
		{"the rule is a link", "cursor", ".cursor/rules/prmonitor.mdc", false},
		{"Claude Code's project file is a link", "claude-code", ".mcp.json", false},
	}
	for _, tt := range tests {
		for _, uninstall := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{true: " (uninstall)"}[uninstall], func(t *testing.T) {
				home, project, outside := t.TempDir(), t.TempDir(), t.TempDir()
				target := filepath.Join(outside, "bashrc")
				require.NoError(t, os.WriteFile(target, []byte("export PATH=/usr/bin\n"), 0o600))
				if tt.dir {
					target = outside
				}
				link := filepath.Join(project, tt.link)
				require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
				require.NoError(t, os.Symlink(target, link))
				args := []string{tt.host, "--workspace", project, "--command", "prmonitor"}
				if uninstall {
					args = append(args, "--uninstall")
				}
				before, beforeOutside := tree(t, project), snapshot(t, outside)

				res := runSetupIn(t, "linux", home, args...)
				assert.Equal(t, exitFailure, res.code)
				assert.Empty(t, res.stdout)
				assert.Contains(t, res.stderr, link+" is a symbolic link: setup follows none inside a workspace")
				assert.Contains(t, res.stderr, "nothing was changed")
				assert.Equal(t, 1, strings.Count(res.stderr, "\n"), "one line: %s", res.stderr)
				assert.Equal(t, before, tree(t, project), "nothing written in the workspace")
				assert.Equal(t, beforeOutside, snapshot(t, outside), "nothing written where the link points")
				assert.Empty(t, snapshot(t, home))
			})
		}
	}
}

// The files setup creates are readable by their owner only; a file it changes keeps its mode.
func TestFilesSetupCreatesAreTheOwnersOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions on Windows")
	}
	home := t.TempDir()
	project := filepath.Join(home, "project")
	require.NoError(t, os.Mkdir(project, 0o755))
	require.Equal(t, exitOK, runSetupIn(t, "linux", home, "copilot-cli").code)
	require.Equal(t, exitOK, runSetupIn(t, "linux", home, "vscode", "--workspace", project, "--command", "prmonitor").code)
	for _, f := range []string{
		filepath.Join(home, ".copilot", "mcp-config.json"),
		filepath.Join(home, ".copilot", "skills", "prmonitor", "SKILL.md"),
		filepath.Join(project, ".vscode", "mcp.json"),
		filepath.Join(project, ".github", "instructions", "prmonitor.instructions.md"),
	} {
		info, err := os.Stat(f)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), f)
	}

	cursor := filepath.Join(home, ".cursor", "mcp.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(cursor), 0o755))
	require.NoError(t, os.WriteFile(cursor, []byte(existingConfig("cursor")), 0o640))
	require.Equal(t, exitOK, runSetupIn(t, "linux", home, "cursor").code)
	info, err := os.Stat(cursor)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), info.Mode().Perm(), "a file setup changes keeps its mode")
}
