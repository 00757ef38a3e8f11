package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --uninstall removes the folders setup made and no other: a host's folder that was there, empty,
// before setup (how `setup all` tells the host is installed) stays, and setup all still finds the
// host afterwards.
func TestUninstallRemovesOnlyTheFoldersSetupMade(t *testing.T) {
	tests := []struct {
		name     string
		existing []string // folders under home before setup
		gone     []string // what --uninstall removes, besides setup's files
	}{
		{"Copilot CLI's empty folder", []string{".copilot"}, []string{".copilot/skills/prmonitor", ".copilot/skills"}},
		{"its empty skills folder too", []string{".copilot/skills"}, []string{".copilot/skills/prmonitor"}},
		{"nothing of Copilot CLI's", nil, []string{".copilot/skills/prmonitor", ".copilot/skills", ".copilot"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			for _, d := range tt.existing {
				require.NoError(t, os.MkdirAll(filepath.Join(home, d), 0o755))
			}
			was := tree(t, home)
			require.Equal(t, exitOK, runSetupIn(t, "linux", home, "copilot-cli").code)

			res := runSetupIn(t, "linux", home, "copilot-cli", "--uninstall")
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Equal(t, was, tree(t, home), "the folders that were there stay; setup's go:\n%s", res.stdout)
			var removed []string
			for _, l := range strings.Split(res.stdout, "\n") {
				if dir, ok := strings.CutPrefix(l, "  removed the folder, left empty: "); ok {
					removed = append(removed, strings.TrimPrefix(dir, home+"/"))
				}
			}
			assert.Equal(t, tt.gone, removed)
			if len(tt.existing) > 0 {
				res = runSetupIn(t, "linux", home, "all")
				require.Equal(t, exitOK, res.code, res.stderr)
				assert.Contains(t, res.stdout, "GitHub Copilot CLI (copilot-cli), your user configuration:", "setup all still finds Copilot CLI")
			}
		})
	}
}

// A configuration that was there before setup comes back byte for byte on --uninstall, whatever
// its layout, even one that held nothing but an empty server list (docs/hosts.md); its backup, the
// same bytes, goes. When the user changed it since, only prmonitor's entry is taken out and the
// backup is kept, and the report says so.
func TestUninstallGivesTheUsersFileBackByteForByte(t *testing.T) {
	for _, original := range []string{
		`{"mcpServers": {}}`,
		"{}\n",
		"{\n\t\"mcpServers\": {\n\t\t\"o\": {\"command\": \"x\"}\n\t}\n}",
		`{"mcpServers":{"o":{"command":"x"}}}`,
		"{\r\n  \"mcpServers\": {\r\n    \"o\": { \"command\": \"x\", \"args\": [\"a\"] }\r\n  }\r\n}\r\n",
		"// mine\n{\"mcpServers\":{\"o\":{\"command\":\"x\"}}}",
	} {
		t.Run(original, func(t *testing.T) {
			home := t.TempDir()
			cfg := filepath.Join(home, ".cursor", "mcp.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
			require.NoError(t, os.WriteFile(cfg, []byte(original), 0o644))
			res := runSetupIn(t, "linux", home, "cursor")
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Contains(t, res.stdout, "the file as it was before setup first changed it: "+cfg+".prmonitor.bak")

			res = runSetupIn(t, "linux", home, "cursor", "--uninstall")
			require.Equal(t, exitOK, res.code, res.stderr)
			assert.Contains(t, res.stdout, `removed the MCP server "prmonitor", and put back the file as it was before setup first changed it: `+cfg)
			got, err := os.ReadFile(cfg)
			require.NoError(t, err)
			assert.Equal(t, original, string(got), "byte for byte")
			assert.Equal(t, []string{".cursor/", ".cursor/mcp.json"}, tree(t, home), "no backup left, Cursor's folder kept")
		})
	}

	t.Run("changed since", func(t *testing.T) {
		home := t.TempDir()
		cfg := filepath.Join(home, ".cursor", "mcp.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
		require.NoError(t, os.WriteFile(cfg, []byte(`{"mcpServers": {}}`), 0o644))
		require.Equal(t, exitOK, runSetupIn(t, "linux", home, "cursor").code)
		b, err := os.ReadFile(cfg)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(string(b), `"mcpServers": {`, `"mcpServers": {"new": {"command": "y"}, `, 1)), 0o644))

		res := runSetupIn(t, "linux", home, "cursor", "--uninstall")
		require.Equal(t, exitOK, res.code, res.stderr)
		assert.Contains(t, res.stdout, `removed the MCP server "prmonitor": `+cfg)
		assert.Contains(t, res.stdout, "kept its backup, the file as it was before setup first changed it (the file has changed since): "+cfg+".prmonitor.bak")
		got, err := os.ReadFile(cfg)
		require.NoError(t, err)
		assert.JSONEq(t, `{"mcpServers": {"new": {"command": "y"}}}`, string(got), "the user's change stays")
		assert.FileExists(t, cfg+".prmonitor.bak")
	})
}

// An unreadable record of the folders setup made stops the run before anything is written: a run
// that went on would forget what an earlier one made.
func TestSetupStopsOnAnUnreadableRecordOfItsFolders(t *testing.T) {
	home := t.TempDir()
	record := filepath.Join(home, ".local", "state", "prmonitor", madeFoldersFile)
	require.NoError(t, os.MkdirAll(filepath.Dir(record), 0o700))
	require.NoError(t, os.WriteFile(record, []byte("{not json"), 0o600))
	was := snapshot(t, home)
	for _, args := range [][]string{{"copilot-cli"}, {"copilot-cli", "--uninstall"}} {
		res := runSetupIn(t, "linux", home, args...)
		assert.Equal(t, exitFailure, res.code)
		assert.Contains(t, res.stderr, "prmonitor setup: "+record+": ")
		assert.Contains(t, res.stderr, "nothing was changed")
		assert.Equal(t, was, snapshot(t, home))
	}
}
