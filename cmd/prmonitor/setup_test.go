package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tailscale/hujson"
)

// testExe is where the tests pretend prmonitor is installed.
const testExe = "/opt/prmonitor/bin/prmonitor"

// runSetupIn runs `prmonitor setup` for the operating system goos, with home as the user's home
// directory (and the token in the environment, to prove it is never written).
func runSetupIn(t *testing.T, goos, home string, args ...string) cliResult {
	t.Helper()
	te := &testEnv{vars: map[string]string{"HOME": home, "GITHUB_TOKEN": testToken}}
	var out, errb bytes.Buffer
	code := setupMain(args, te.env(&out, &errb).withDefaults(), setupSystem{goos: goos,
		executable: func() (string, error) { return testExe, nil }})
	return cliResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// snapshot is every file under dir and its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[strings.TrimPrefix(p, dir)] = string(b)
		return err
	}))
	return files
}

// existingConfig is a host's configuration as a user has it before setup: another server, other
// settings, and for VS Code (which reads JSONC) comments and trailing commas.
func existingConfig(host string) string {
	switch host {
	case "vscode":
		return "// servers I use\n{\n\t\"servers\": {\n\t\t// GitHub's own\n\t\t\"github\": {\"type\": \"http\", \"url\": \"https://api.githubcopilot.com/mcp/\"},\n\t},\n" +
			"\t\"inputs\": [\n\t\t{\"type\": \"promptString\", \"id\": \"key\", \"password\": true},\n\t],\n}\n"
	case "claude-code":
		return "{\n  \"numStartups\": 41,\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"http\",\n      \"url\": \"https://api.githubcopilot.com/mcp/\"\n    }\n  },\n  \"projects\": {\n    \"/src/app\": {\"allowedTools\": []}\n  }\n}\n"
	default:
		return "{\n  \"mcpServers\": {\n    \"github\": {\n      \"type\": \"http\",\n      \"url\": \"https://api.githubcopilot.com/mcp/\"\n    }\n  }\n}\n"
	}
}

// TestSetupEveryHostOnATemporaryHome runs setup as a user would, for every host, on Linux's and
// macOS's layouts, over a configuration that already has another server: the entry is merged in
// and the rest kept (comments included), the instructions installed, the old file backed up; a
// second run changes nothing and says so; --uninstall takes out exactly what setup put in.
func TestSetupEveryHostOnATemporaryHome(t *testing.T) {
	for _, goos := range []string{"linux", "darwin"} {
		for _, h := range hosts {
			t.Run(goos+"/"+h.name, func(t *testing.T) {
				home := t.TempDir()
				files, err := h.locate(locator{goos: goos, getenv: func(k string) string { return map[string]string{"HOME": home}[k] }})
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Dir(files.config), 0o755))
				before := existingConfig(h.name)
				require.NoError(t, os.WriteFile(files.config, []byte(before), 0o600))

				res := runSetupIn(t, goos, home, h.name)
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Contains(t, res.stdout, `registered the MCP server "prmonitor": `+files.config)
				assert.Contains(t, res.stdout, "undo: prmonitor setup "+h.name+" --uninstall")
				assert.Contains(t, res.stdout, "The hosts run: "+testExe+" serve")
				if h.name == "claude-code" {
					assert.Contains(t, res.stdout, "claude --dangerously-load-development-channels server:prmonitor", "how to turn channels on")
				} else {
					assert.NotContains(t, res.stdout, "channels")
				}

				after, err := os.ReadFile(files.config)
				require.NoError(t, err)
				v, err := hujson.Parse(after)
				require.NoError(t, err)
				std, _ := hujson.Standardize(bytes.Clone(after)) // Standardize blanks comments in place
				var cfg map[string]any
				require.NoError(t, json.Unmarshal(std, &cfg))
				servers := cfg[files.servers[0]].(map[string]any)
				assert.Contains(t, servers, "github", "the other server is kept")
				wantEntry, _ := json.Marshal(h.entry(testExe))
				gotEntry, _ := json.Marshal(servers["prmonitor"])
				assert.JSONEq(t, string(wantEntry), string(gotEntry))
				if h.name == "vscode" {
					assert.Contains(t, string(after), "// servers I use")
					assert.Contains(t, string(after), "// GitHub's own")
					assert.Contains(t, cfg, "inputs")
				} else {
					assert.True(t, json.Valid(after), "a strict-JSON host gets strict JSON:\n%s", after)
					assert.True(t, v.IsStandard())
				}
				if h.name == "claude-code" {
					assert.Equal(t, float64(41), cfg["numStartups"], "the host's other settings are kept")
				}
				// Every line of the old file is still there, in order: setup only added lines.
				assertOnlyAdded(t, before, string(after))

				backups, _ := filepath.Glob(files.config + ".prmonitor*.bak")
				require.Equal(t, []string{files.config + ".prmonitor.bak"}, backups, res.stdout)
				b, _ := os.ReadFile(backups[0])
				assert.Equal(t, before, string(b), "the backup is the file as it was")
				assert.Contains(t, res.stdout, "the file as it was before setup first changed it: "+backups[0])
				info, _ := os.Stat(files.config)
				assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), "the file keeps its permissions")

				if files.guide != "" {
					g, err := os.ReadFile(files.guide)
					require.NoError(t, err)
					assert.Equal(t, renderGuide(files.format), string(g))
				}
				for p, content := range snapshot(t, home) {
					assert.NotContains(t, content, testToken, "the token is never written (%s)", p)
				}

				// A second run: nothing changes, and it says so.
				was := snapshot(t, home)
				res = runSetupIn(t, goos, home, h.name)
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Contains(t, res.stdout, "already set up, nothing changed")
				assert.Equal(t, was, snapshot(t, home), "a second run writes nothing, not even a backup")

				// --uninstall takes out prmonitor's entry and instructions, and only those.
				res = runSetupIn(t, goos, home, h.name, "--uninstall")
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Contains(t, res.stdout, `removed the MCP server "prmonitor", and put back the file as it was before setup first changed it: `+files.config)
				after, _ = os.ReadFile(files.config)
				assert.Equal(t, before, string(after), "setup then --uninstall gives the file back as it was")
				if files.guide != "" {
					assert.NoFileExists(t, files.guide)
				}
				if files.format == formatSkill {
					assert.NoDirExists(t, filepath.Dir(files.guide), "the skill's folder goes too")
				}
				res = runSetupIn(t, goos, home, h.name, "--uninstall")
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Contains(t, res.stdout, "nothing to remove")
				var baks []string
				for p := range snapshot(t, home) {
					if strings.HasSuffix(p, ".bak") {
						baks = append(baks, p)
					}
				}
				assert.Empty(t, baks, "the configuration is back as it was before setup: its backup went with it")
			})
		}
	}
}

// assertOnlyAdded checks that every line of before appears in after, in order, ignoring a
// comma added at the end of the line that now has a neighbour.
func assertOnlyAdded(t *testing.T, before, after string) {
	t.Helper()
	rest := strings.Split(after, "\n")
	for _, line := range strings.Split(before, "\n") {
		found := false
		for len(rest) > 0 {
			l := rest[0]
			rest = rest[1:]
			if l == line || l == line+"," {
				found = true
				break
			}
		}
		require.True(t, found, "line %q of the old file is missing or moved:\n%s", line, after)
	}
}

// TestSetupOnAFreshHomeCreatesTheFiles: nothing there yet, so the files are created (no backup:
// there was nothing to keep).
func TestSetupOnAFreshHomeCreatesTheFiles(t *testing.T) {
	home := t.TempDir()
	res := runSetupIn(t, "linux", home, "copilot-cli")
	require.Equal(t, exitOK, res.code, res.stderr)
	cfg, err := os.ReadFile(filepath.Join(home, ".copilot", "mcp-config.json"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"mcpServers": {"prmonitor": {"type": "local", "command": "`+testExe+`", "args": ["serve"], "tools": ["*"]}}}`, string(cfg))
	assert.FileExists(t, filepath.Join(home, ".copilot", "skills", "prmonitor", "SKILL.md"))
	assert.NotContains(t, res.stdout, "the file as it was")
	backups, _ := filepath.Glob(filepath.Join(home, ".copilot", "*.bak"))
	assert.Empty(t, backups)
}

// TestSetupDryRunPrintsTheChangeAndWritesNothing: --dry-run shows a unified diff of each file
// and leaves the disk as it was.
func TestSetupDryRunPrintsTheChangeAndWritesNothing(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".cursor", "mcp.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
	require.NoError(t, os.WriteFile(cfg, []byte(existingConfig("cursor")), 0o644))
	was := snapshot(t, home)

	res := runSetupIn(t, "linux", home, "cursor", "--dry-run")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, was, snapshot(t, home), "a dry run writes nothing")
	assert.Contains(t, res.stdout, "--- "+cfg+"\n+++ "+cfg+"\n@@ ")
	assert.Contains(t, res.stdout, "+    \"prmonitor\": {\n+      \"command\": \""+testExe+"\",")
	assert.Contains(t, res.stdout, "dry run: nothing was written")

	res = runSetupIn(t, "linux", home, "claude-code", "--dry-run")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "--- /dev/null\n+++ "+filepath.Join(home, ".claude.json"))
	assert.Contains(t, res.stdout, "+name: prmonitor")
	assert.Equal(t, was, snapshot(t, home))

	require.Equal(t, exitOK, runSetupIn(t, "linux", home, "cursor").code)
	res = runSetupIn(t, "linux", home, "cursor", "--dry-run")
	assert.Contains(t, res.stdout, "dry run: nothing would change")
}

// TestSetupLeavesAMalformedFileAlone: a configuration that is not JSON is reported with where it
// breaks, setup exits non-zero, and no file anywhere is touched (not even another host's).
func TestSetupLeavesAMalformedFileAlone(t *testing.T) {
	home := t.TempDir()
	bad := filepath.Join(home, ".copilot", "mcp-config.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	require.NoError(t, os.WriteFile(bad, []byte("{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\"\n  }\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".cursor"), 0o755))
	was := snapshot(t, home)

	for _, host := range []string{"copilot-cli", "all"} {
		res := runSetupIn(t, "linux", home, host)
		assert.Equal(t, exitFailure, res.code)
		assert.Empty(t, res.stdout)
		assert.Contains(t, res.stderr, "prmonitor setup: copilot-cli: "+bad+": not valid JSON")
		assert.Contains(t, res.stderr, "line 5")
		assert.Contains(t, res.stderr, "; nothing was changed\n")
		assert.Equal(t, 1, strings.Count(res.stderr, "\n"), "one line: %s", res.stderr)
		assert.Equal(t, was, snapshot(t, home), "the file is untouched and nothing else was written")
	}

	require.NoError(t, os.WriteFile(bad, []byte(`{"mcpServers": {"prmonitor": "prmonitor serve"}}`), 0o644))
	res := runSetupIn(t, "linux", home, "copilot-cli")
	assert.Equal(t, exitFailure, res.code)
	assert.Contains(t, res.stderr, "mcpServers.prmonitor is not a JSON object")
}

// TestSetupKeepsTheUsersOwnKeysInTheEntry: an entry the user extended (an env, a timeout, an
// argument such as --verbose) is updated key by key; their keys and arguments stay, and the report
// says which arguments it kept.
func TestSetupKeepsTheUsersOwnKeysInTheEntry(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, ".claude.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"mcpServers": {"prmonitor": {"command": "/old/prmonitor", "args": ["serve", "--verbose"], "env": {"GH_HOST": "ghe.example.com"}, "timeout": 600000}}}`), 0o600))
	res := runSetupIn(t, "linux", home, "claude-code")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, `updated the MCP server "prmonitor" (kept your arguments --verbose)`)
	got, _ := os.ReadFile(cfg)
	assert.JSONEq(t, `{"mcpServers": {"prmonitor": {"command": "`+testExe+`", "args": ["serve", "--verbose"], "env": {"GH_HOST": "ghe.example.com"}, "timeout": 600000, "type": "stdio"}}}`, string(got))
}

// TestSetupAllSetsUpTheHostsFoundHere: `all` sets up the hosts whose folders exist and says which
// it skipped and how to set them up anyway.
func TestSetupAllSetsUpTheHostsFoundHere(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config", "Code", "User"), 0o755))
	res := runSetupIn(t, "linux", home, "all")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.FileExists(t, filepath.Join(home, ".claude.json"))
	assert.FileExists(t, filepath.Join(home, ".config", "Code", "User", "mcp.json"))
	assert.NoDirExists(t, filepath.Join(home, ".copilot"))
	assert.NoDirExists(t, filepath.Join(home, ".cursor"))
	assert.Contains(t, res.stdout, "skipped copilot-cli: not found here (no "+filepath.Join(home, ".copilot")+"); 'prmonitor setup copilot-cli' sets it up anyway")
	assert.Contains(t, res.stdout, "skipped cursor: not found here")

	empty := t.TempDir()
	res = runSetupIn(t, "linux", empty, "all")
	assert.Equal(t, exitFailure, res.code)
	assert.Contains(t, res.stderr, "prmonitor setup: no host found on this machine (looked for claude-code: "+filepath.Join(empty, ".claude.json")+" or "+
		filepath.Join(empty, ".claude")+"; copilot-cli: "+filepath.Join(empty, ".copilot")+"; vscode: "+filepath.Join(empty, ".config", "Code", "User")+
		"; cursor: "+filepath.Join(empty, ".cursor")+"); name one to set it up anyway: claude-code, copilot-cli, vscode, cursor\n")
	assert.Empty(t, tree(t, empty), "nothing written")
}

// TestSetupWorkspace writes a project's files: VS Code's .vscode/mcp.json and instructions,
// Cursor's .cursor/mcp.json and rule.
func TestSetupWorkspace(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	res := runSetupIn(t, "linux", home, "vscode", "--workspace", project, "--command", "prmonitor")
	require.Equal(t, exitOK, res.code, res.stderr)
	got, err := os.ReadFile(filepath.Join(project, ".vscode", "mcp.json"))
	require.NoError(t, err)
	assert.JSONEq(t, `{"servers": {"prmonitor": {"type": "stdio", "command": "prmonitor", "args": ["serve"]}}}`, string(got))
	assert.FileExists(t, filepath.Join(project, ".github", "instructions", "prmonitor.instructions.md"))
	assert.Contains(t, res.stdout, "VS Code (vscode), the workspace "+project)
	assert.Contains(t, res.stdout, "undo: prmonitor setup vscode --workspace "+project+" --uninstall")

	res = runSetupIn(t, "linux", home, "cursor", "--workspace", project)
	require.Equal(t, exitOK, res.code, res.stderr)
	rule, err := os.ReadFile(filepath.Join(project, ".cursor", "rules", "prmonitor.mdc"))
	require.NoError(t, err)
	assert.Contains(t, string(rule), "alwaysApply: false")
	assert.Empty(t, snapshot(t, home), "a workspace setup writes nothing in the home directory")
}

// TestSetupFollowsASymlinkedConfig: a configuration kept in a dotfiles repository and linked in
// place is changed where it lives; the link stays a link.
func TestSetupFollowsASymlinkedConfig(t *testing.T) {
	home, dotfiles := t.TempDir(), t.TempDir()
	real := filepath.Join(dotfiles, "claude.json")
	require.NoError(t, os.WriteFile(real, []byte("{}\n"), 0o644))
	link := filepath.Join(home, ".claude.json")
	require.NoError(t, os.Symlink(real, link))
	res := runSetupIn(t, "linux", home, "claude-code")
	require.Equal(t, exitOK, res.code, res.stderr)
	info, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, info.Mode()&fs.ModeSymlink, "the link is still a link")
	got, _ := os.ReadFile(real)
	assert.Contains(t, string(got), `"prmonitor"`)
}

// TestSetupUsageErrors: each mistake is one line on stderr and exit 2, with nothing written.
func TestSetupUsageErrors(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	tests := []struct {
		args []string
		want string
	}{
		{nil, "name one host: claude-code, copilot-cli, vscode, cursor, or all"},
		{[]string{"emacs"}, `unknown host "emacs"`},
		{[]string{"vscode", "cursor"}, "name one host"},
		{[]string{"all", "--workspace", home}, "--workspace sets up a project's files for vscode, cursor or claude-code"},
		{[]string{"copilot-cli", "--workspace", home}, "--workspace sets up a project's files"},
		{[]string{"vscode", "--workspace", file}, "not a directory"},
		{[]string{"vscode", "--bogus"}, "unknown flag --bogus"},
	}
	for _, tc := range tests {
		res := runSetupIn(t, "linux", home, tc.args...)
		assert.Equal(t, exitUsage, res.code, tc.args)
		assert.Contains(t, res.stderr, tc.want, tc.args)
		assert.Equal(t, 1, strings.Count(res.stderr, "\n"), "one line: %s", res.stderr)
		assert.Empty(t, res.stdout)
	}
	assert.Equal(t, map[string]string{"/file": ""}, snapshot(t, home))
}

// TestSetupRefusesABinaryGoRunWillDelete: `go run ./cmd/prmonitor setup` would register a binary
// in a temporary build folder; setup says so instead.
func TestSetupRefusesABinaryGoRunWillDelete(t *testing.T) {
	_, err := serverCommand("", func() (string, error) { return "/tmp/go-build123/b001/exe/prmonitor", nil })
	assert.ErrorContains(t, err, "built by 'go run'")
	cmd, err := serverCommand("prmonitor", func() (string, error) { return "/tmp/go-build123/b001/exe/prmonitor", nil })
	require.NoError(t, err)
	assert.Equal(t, "prmonitor", cmd)
	cmd, err = serverCommand("", func() (string, error) { return testExe, nil })
	require.NoError(t, err)
	assert.Equal(t, testExe, cmd)
}

// TestSetupIsACommand: the subcommand is reachable from the top, with its help.
func TestSetupIsACommand(t *testing.T) {
	res := runCLI(t, &testEnv{}, "setup", "--help")
	assert.Equal(t, exitOK, res.code)
	assert.Contains(t, res.stdout, "usage: prmonitor setup [--workspace DIR] [--command COMMAND] [--dry-run] HOST")
	assert.Contains(t, res.stdout, "-dry-run")
	res = runCLI(t, &testEnv{}, "help")
	assert.Contains(t, res.stdout, "prmonitor setup [--workspace DIR] [--dry-run] --uninstall HOST")
}
