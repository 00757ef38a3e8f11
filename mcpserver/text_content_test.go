package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Many hosts show the model only a result's text content: it is the structured result's JSON,
// as the model should read it, with GitHub's text fenced by <<<…>>> (not <, > escaped for HTML).
func TestTextContentIsTheStructuredResultAsReadable(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "Add <retries> & backoff"})
	res, err := h.session.CallTool(context.Background(), &sdk.CallToolParams{Name: "pr_monitor_start", Arguments: map[string]any{"pr": h.ref.String()}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 1)
	text := res.Content[0].(*sdk.TextContent).Text
	assert.Contains(t, text, `"title":"<<<untrusted GitHub text `)
	assert.Contains(t, text, "Add <retries> & backoff")
	assert.NotContains(t, text, `\u003c`)

	var fromText, structured map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &fromText))
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &structured))
	assert.Equal(t, structured, fromText, "the text is the structured result")
}
