package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// The agent's context is a budget: every tool's schemas are sent with tools/list, and a host
// may keep them in the model's context for the whole session. An output schema describes the
// envelope an agent reads (what kind of action, which task, which question, what to call next);
// the payloads inside it (a task's context, an action a monitor waits on) are described in a
// line each, not field by field: the action's full schema is pr_monitor_next_step's, once. The
// whole tools/list stays under maxToolsList (TestContractSize measures it over MCP).

// maxToolsList bounds the tools/list result a server offers by default, in bytes of JSON: the
// five monitor tools. maxToolsListDispatch bounds it with pr_dispatch too (serve --dispatch).
const (
	maxToolsList         = 8 << 10
	maxToolsListDispatch = 10 << 10
)

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
func outputSchema[T any](briefs ...brief) (mcp.ToolOption, error) {
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
	return mcp.WithRawOutputSchema(out), nil
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
