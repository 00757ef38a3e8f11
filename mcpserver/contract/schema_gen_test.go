package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaSources derive each tool's schemas from its Go types, so that they cannot drift from
// what the server reads and sends. They run here, at build time, not when the server starts:
// TestEmbeddedSchemasAreDerivedFromTheTypes writes them to schemas/ with UPDATE_SCHEMAS=1 (go
// generate ./mcpserver) and fails when a file there is stale.
var schemaSources = map[string]func() (in, out []byte, err error){
	ToolStart: derive[StartInput, StartOutput](briefObject("properties/pending", "What it waits on: an action, as pr_monitor_next_step returns it.")),
	ToolStartAll: derive[StartAllInput, StartAllOutput](
		briefList("properties/started", "[{monitor_id, pr, title, resumed}]"),
		briefList("properties/skipped", "[{pr, title, reason}]"),
	),
	ToolNextStep: derive[NextStepInput, ActionOutput](
		briefObject("properties/context", "The task's payload: the pull request and the threads, reviews, checks or logs in play; GitHub text in it is fenced as data."),
		briefObject("properties/question", "ask_user: {id, seq, question, choices: [{value, label}]}."),
	),
	ToolStatus: derive[StatusInput, StatusOutput](
		briefObject("properties/monitors/items/properties/pending", "What it waits on: an action (in a listing: its kind, task and question)."),
		briefObject("properties/monitors/items/properties/detail", "For one monitor asked by id: node, flow, attention_reason, last_action, last_poll, needs_refine, ci, reviews."),
		briefObject("properties/watcher", "How GitHub is read: prs, cycle, budget, points_this_hour of budget_points, remaining, limit, held_until."),
	),
	ToolStop: derive[StopInput, StopOutput](),
	ToolDispatch: derive[DispatchInput, DispatchOutput](
		briefList("properties/spawns", "The workers to start: {type, number, sha, reason, task}; hand task to the worker as it is."),
		briefList("properties/prs", "Each open pull request's {number, decision, rule, reason}, ascending."),
		briefList("properties/mutations", "The label and assignee writes, in order: {action, number, value, applied}."),
		briefList("properties/handoffs", "Pull requests ready for a human: {number, reason}."),
		briefObject("properties/github", "What the run cost: graphql_requests, graphql_points, rest_writes."),
	),
}

// derive is the schemas of a tool whose input is In and whose result is Out, with each brief part
// of the output replaced by its one-line schema.
func derive[In, Out any](briefs ...brief) func() ([]byte, []byte, error) {
	return func() ([]byte, []byte, error) {
		var t mcp.Tool
		mcp.WithInputSchema[In]()(&t)
		if len(t.RawInputSchema) == 0 {
			return nil, nil, fmt.Errorf("input schema: none can be derived from %T", *new(In))
		}
		out, err := outputSchema[Out](briefs...)
		return t.RawInputSchema, out, err
	}
}

func TestEmbeddedSchemasAreDerivedFromTheTypes(t *testing.T) {
	tools, err := Tools(ToolOptions{Dispatch: true})
	require.NoError(t, err)
	require.Len(t, schemaSources, len(tools), "every tool's schemas have a source")
	files, err := filepath.Glob(filepath.Join("schemas", "*.json"))
	require.NoError(t, err)
	assert.Len(t, files, 2*len(schemaSources), "a schema file of a tool that no longer exists")
	for name, source := range schemaSources {
		t.Run(name, func(t *testing.T) {
			in, out, err := source()
			require.NoError(t, err)
			for kind, want := range map[string][]byte{"input": in, "output": out} {
				var b bytes.Buffer
				require.NoError(t, json.Indent(&b, want, "", "  "))
				b.WriteByte('\n')
				path := filepath.Join("schemas", name+"."+kind+".json")
				if os.Getenv("UPDATE_SCHEMAS") != "" {
					require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
				}
				have, err := os.ReadFile(path)
				require.NoError(t, err, "no %s schema for %s: run go generate ./mcpserver", kind, name)
				assert.Equal(t, b.String(), string(have), "%s is stale: run go generate ./mcpserver", path)
			}
		})
	}
}

// TestTheServerSendsTheSchemasCompact: the embedded files are indented for their readers; what
// tools/list carries is the same JSON, compact.
func TestTheServerSendsTheSchemasCompact(t *testing.T) {
	tools, err := Tools(ToolOptions{Dispatch: true})
	require.NoError(t, err)
	for _, tool := range tools {
		raw, err := json.Marshal(tool)
		require.NoError(t, err)
		assert.NotContains(t, string(raw), "\n  ", "%s is sent compact", tool.Name)
	}
}

// brief names a part of a schema, by its path of keys ("properties/context"), that is described
// in one line instead of field by field.
type brief struct {
	path   string
	schema map[string]any
}

// briefObject describes the object at path in one line.
func briefObject(path, description string) brief {
	return brief{path, map[string]any{"type": "object", "description": description}}
}

// briefList describes the list at path in one line.
func briefList(path, description string) brief {
	return brief{path, map[string]any{"type": []any{"null", "array"}, "description": description}}
}

// outputSchema is T's output schema: generated from T, so it cannot drift from what the server
// sends, with each brief part replaced by its one-line schema. It does not forbid properties it
// does not name: a result may gain fields, and its readers ignore those they do not know.
func outputSchema[T any](briefs ...brief) ([]byte, error) {
	var scratch mcp.Tool
	mcp.WithOutputSchema[T]()(&scratch)
	if scratch.OutputSchema.Type == "" {
		return nil, fmt.Errorf("output schema: none can be derived from %T", *new(T))
	}
	raw, err := json.Marshal(scratch.OutputSchema)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	for _, b := range briefs {
		if err := replace(schema, strings.Split(b.path, "/"), b.schema); err != nil {
			return nil, fmt.Errorf("output schema: %s: %w", b.path, err)
		}
	}
	allowExtra(schema)
	out, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	return out, nil
}

// allowExtra drops every "additionalProperties": false.
func allowExtra(schema any) {
	switch v := schema.(type) {
	case map[string]any:
		if v["additionalProperties"] == false {
			delete(v, "additionalProperties")
		}
		for _, sub := range v {
			allowExtra(sub)
		}
	case []any:
		for _, sub := range v {
			allowExtra(sub)
		}
	}
}

// replace sets the subschema at path to with. The subschema must exist: a brief that names
// nothing is a mistake in the tool's definition.
func replace(schema map[string]any, path []string, with map[string]any) error {
	node := schema
	for i, key := range path {
		next, ok := node[key].(map[string]any)
		if !ok {
			return fmt.Errorf("no object at %q", strings.Join(path[:i+1], "/"))
		}
		if i == len(path)-1 {
			node[key] = with
			return nil
		}
		node = next
	}
	return fmt.Errorf("empty path")
}

func TestOutputSchemaRefusesABriefThatNamesNothing(t *testing.T) {
	_, err := outputSchema[StopOutput](briefObject("properties/nothing", "x"))
	require.ErrorContains(t, err, `no object at "properties/nothing"`)
}
