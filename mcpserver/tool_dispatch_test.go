package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestDispatchToolReturnsTheRunsDecision(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) { dispatchToolRun(t, protocol) })
	}
}

func dispatchToolRun(t *testing.T, protocol string) {
	h := newHarness(t, harnessOpts{protocol: protocol, cfg: withDispatch})
	h.apply(githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess})
	head := h.fake.PR(githubfake.Ref(h.ref)).HeadOID()

	raw, errText := h.call("pr_dispatch", map[string]any{"repo": "acme/widgets", "dry_run": true})
	require.Empty(t, errText)
	var out contract.DispatchOutput
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.True(t, out.DryRun)
	require.Len(t, out.Spawns, 1)
	assert.Equal(t, "SPAWN:self-review:7:"+head, out.Spawns[0].Line())
	assert.True(t, strings.HasPrefix(out.Spawns[0].Task, "ABSOLUTE CONSTRAINTS."))
	require.Len(t, out.Mutations, 1)
	assert.False(t, out.Mutations[0].Applied)
	writes := slices.DeleteFunc(h.fake.Requests(), func(r githubfake.Request) bool {
		return r.Kind != githubfake.KindREST || r.Method == "GET"
	})
	assert.Empty(t, writes, "dry_run: no write (the configuration is read from the repository, nothing written)")

	raw, errText = h.call("pr_dispatch", map[string]any{"repo": "acme/widgets"})
	require.Empty(t, errText)
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.True(t, out.Mutations[0].Applied, "the lock label is added")
	assert.Empty(t, h.fake.Merges())
	assert.Empty(t, h.fake.Forbidden())
}

func TestDispatchToolErrors(t *testing.T) {
	h := newHarness(t, harnessOpts{cfg: withDispatch})
	for _, tt := range []struct {
		args    map[string]any
		wantErr string
	}{
		{map[string]any{"repo": "acme"}, "want OWNER/REPO"},
		{map[string]any{"repo": "acme/widgets#7"}, "want OWNER/REPO"},
		{map[string]any{"repo": "nobody/nothing"}, "no repository nobody/nothing"},
	} {
		_, errText := h.call("pr_dispatch", tt.args)
		assert.Contains(t, errText, tt.wantErr, "%v", tt.args)
	}
}

func TestDispatchToolNeedsAWholeRepositoryClient(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return onePROnly{}, nil }, Dispatch: true})
	require.NoError(t, err)
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_dispatch", Arguments: map[string]any{"repo": "acme/widgets"}}}
	res, err := srv.handleDispatch(t.Context(), req)
	require.NoError(t, err)
	assert.True(t, res.IsError)
}

// TestDispatchIsOfferedOnlyWhenEnabled: pr_dispatch is listed and answered only by a server started
// with dispatch enabled (prmonitor serve --dispatch); others never offer it.
func TestDispatchIsOfferedOnlyWhenEnabled(t *testing.T) {
	for _, enabled := range []bool{false, true} {
		h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.Dispatch = enabled }})
		res, err := h.session.ListTools(t.Context(), nil)
		require.NoError(t, err)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
		}
		assert.Equal(t, enabled, slices.Contains(names, contract.ToolDispatch), "dispatch enabled: %v; listed: %v", enabled, names)
		assert.Len(t, names, map[bool]int{false: 5, true: 6}[enabled])
		if !enabled {
			_, err := h.session.CallTool(t.Context(), &sdk.CallToolParams{Name: contract.ToolDispatch, Arguments: map[string]any{"repo": "acme/widgets"}})
			require.Error(t, err, "a tool the server does not offer cannot be called")
			assert.Contains(t, err.Error(), "pr_dispatch")
		}
	}
}

// withDispatch enables pr_dispatch.
func withDispatch(c *Config) { c.Dispatch = true }

// onePROnly is a GitHub client that reads single pull requests only.
type onePROnly struct{ GitHub }

// pr_dispatch reads its configuration from the repository's default branch, as the command does
// without --config, never from the server's working directory (docs/security.md).
func TestDispatchToolReadsTheConfigurationFromTheRepository(t *testing.T) {
	// A file in the directory the server runs in, where anyone who can write there plants one.
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".prmonitor"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".prmonitor", "dispatch.yaml"), []byte("user: planted\n"), 0o600))
	t.Chdir(dir)
	h := newHarness(t, harnessOpts{cfg: withDispatch})
	h.apply(githubfake.OpenPR{Title: "t"})
	h.fake.PutFile("acme", "widgets", ".prmonitor/dispatch.yaml", "user: dispatch-bot\n")
	raw, errText := h.call("pr_dispatch", map[string]any{"repo": "acme/widgets", "dry_run": true})
	require.Empty(t, errText)
	var out contract.DispatchOutput
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.Equal(t, "dispatch-bot", out.User, "the user named by the repository's file")

	// A repository without the file runs on the defaults, never on the planted file.
	require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "gadgets", Number: 1}, githubfake.OpenPR{Title: "t"}))
	raw, errText = h.call("pr_dispatch", map[string]any{"repo": "acme/gadgets", "dry_run": true})
	require.Empty(t, errText)
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.NotEqual(t, "planted", out.User, "the file in the server's directory is not read")
}
