package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestDispatchToolReturnsTheRunsDecision(t *testing.T) {
	for _, protocol := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(protocol, func(t *testing.T) { dispatchToolRun(t, protocol) })
	}
}

func dispatchToolRun(t *testing.T, protocol string) {
	h := newHarness(t, harnessOpts{protocol: protocol})
	h.apply(githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: []string{"build"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess})
	head := h.fake.PR(githubfake.Ref(h.ref)).HeadOID()

	raw, errText := h.call("pr_dispatch", map[string]any{"repo": "acme/widgets", "dry_run": true})
	require.Empty(t, errText)
	var out DispatchOutput
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.True(t, out.DryRun)
	require.Len(t, out.Spawns, 1)
	assert.Equal(t, "SPAWN:self-review:7:"+head, out.Spawns[0].Line())
	assert.True(t, strings.HasPrefix(out.Spawns[0].Task, "ABSOLUTE CONSTRAINTS."))
	require.Len(t, out.Mutations, 1)
	assert.False(t, out.Mutations[0].Applied)
	assert.Zero(t, h.fake.RESTCalls(), "dry_run: no write")

	raw, errText = h.call("pr_dispatch", map[string]any{"repo": "acme/widgets"})
	require.Empty(t, errText)
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.True(t, out.Mutations[0].Applied, "the lock label is added")
	assert.Empty(t, h.fake.Merges())
	assert.Empty(t, h.fake.Forbidden())
}

func TestDispatchToolErrors(t *testing.T) {
	h := newHarness(t, harnessOpts{})
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
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return onePROnly{}, nil }})
	require.NoError(t, err)
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_dispatch", Arguments: map[string]any{"repo": "acme/widgets"}}}
	res, err := srv.handleDispatch(t.Context(), req)
	require.NoError(t, err)
	assert.True(t, res.IsError)
}

// onePROnly is a GitHub client that reads single pull requests only.
type onePROnly struct{ GitHub }
