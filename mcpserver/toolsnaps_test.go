package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
)

// TestToolSchemasMatchSnapshots pins the agent-facing contract: each tool's name, description,
// annotations and input and output schemas. An intended change is recorded with
// UPDATE_TOOLSNAPS=1 go test ./mcpserver; a missing snapshot fails.
func TestToolSchemasMatchSnapshots(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, Dispatch: true})
	require.NoError(t, err)
	tools := srv.MCP().ListTools()
	require.Len(t, tools, 6)
	snaps, err := filepath.Glob(filepath.Join("testdata", "toolsnaps", "*.json"))
	require.NoError(t, err)
	assert.Len(t, snaps, len(tools), "a snapshot of a tool no longer offered")
	for name, tool := range tools {
		t.Run(name, func(t *testing.T) {
			got, err := json.MarshalIndent(tool.Tool, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			path := filepath.Join("testdata", "toolsnaps", name+".json")
			if os.Getenv("UPDATE_TOOLSNAPS") != "" {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no snapshot for %s: run UPDATE_TOOLSNAPS=1 go test ./mcpserver", name)
			assert.Equal(t, string(want), string(got), "the %s contract changed; if intended, run UPDATE_TOOLSNAPS=1 go test ./mcpserver", name)

			var decoded struct {
				Annotations map[string]any `json:"annotations"`
			}
			require.NoError(t, json.Unmarshal(got, &decoded))
			for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				assert.Contains(t, decoded.Annotations, hint, "%s must set %s explicitly", name, hint)
			}
			assert.True(t, bytes.Contains(got, []byte(`"outputSchema"`)), "typed output schema")
		})
	}
}

// TestToolsAreTheServersDefinitions: contract.Tools gives, without a server, exactly the tools the server
// lists, so that another front end serving them with its own handlers offers the same contract.
func TestToolsAreTheServersDefinitions(t *testing.T) {
	for _, dispatch := range []bool{false, true} {
		defs, err := contract.Tools(contract.ToolOptions{Dispatch: dispatch})
		require.NoError(t, err)
		srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, Dispatch: dispatch})
		require.NoError(t, err)
		served := srv.MCP().ListTools()
		require.Len(t, defs, len(served))
		for _, def := range defs {
			got, ok := served[def.Name]
			require.True(t, ok, "%s is served", def.Name)
			want, err := json.Marshal(def)
			require.NoError(t, err)
			have, err := json.Marshal(got.Tool)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(have), def.Name)
		}
	}
}

func TestNextStepDataIsAnObjectNotAString(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }})
	require.NoError(t, err)
	tool := srv.MCP().GetTool("pr_monitor_next_step")
	require.NotNil(t, tool)
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	raw, err := json.Marshal(tool.Tool.RawInputSchema)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &schema), string(raw))
	assert.Contains(t, []any{"object", []any{"null", "object"}}, schema.Properties["data"].Type)
	assert.ElementsMatch(t, []string{"monitor_id", "event"}, schema.Required)
}

func TestStopRequiresAMonitorIDStatusDoesNot(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }})
	require.NoError(t, err)
	required := func(name string) ([]string, string) {
		tool := srv.MCP().GetTool(name)
		require.NotNil(t, tool)
		var schema struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(tool.Tool.RawInputSchema, &schema))
		return schema.Required, schema.Properties["monitor_id"].Description
	}
	req, desc := required("pr_monitor_stop")
	assert.Equal(t, []string{"monitor_id"}, req)
	assert.Contains(t, desc, "stop")
	assert.NotContains(t, desc, "omit", "stop's own words, not status's")
	req, desc = required("pr_monitor_status")
	assert.Empty(t, req)
	assert.Contains(t, desc, "omit it for every monitor")
}
