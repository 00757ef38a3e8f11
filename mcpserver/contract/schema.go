package contract

import (
	"embed"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
)

// The agent's context is a budget: every tool's schemas are sent with tools/list, and a host
// may keep them in the model's context for the whole session. An output schema describes the
// envelope an agent reads (what kind of action, which task, which question, what to call next);
// the payloads inside it (a task's context, an action a monitor waits on) are described in a
// line each, not field by field: the action's full schema is pr_monitor_next_step's, once. The
// whole tools/list stays under MaxToolsList (TestContractSize measures it over MCP).
//
// The schemas are built once, when prmonitor is built: schemas/TOOL.input.json and
// TOOL.output.json are generated from the tools' Go types (schema_gen_test.go, which fails when
// a file is stale) and embedded, so that starting the server derives nothing by reflection.

// MaxToolsList bounds the tools/list result a server offers by default, in bytes of JSON: the
// five monitor tools. MaxToolsListDispatch bounds it with pr_dispatch too (serve --dispatch).
const (
	MaxToolsList         = 8 << 10
	MaxToolsListDispatch = 10 << 10
)

//go:generate env UPDATE_SCHEMAS=1 go test -run TestEmbeddedSchemasAreDerivedFromTheTypes .

//go:embed schemas/*.json
var schemaFiles embed.FS

// toolSchemas sets a tool's input and output schemas, as embedded.
func toolSchemas(tool string) (mcp.ToolOption, error) {
	in, err := schemaFiles.ReadFile("schemas/" + tool + ".input.json")
	if err != nil {
		return nil, fmt.Errorf("%s: no input schema: %w", tool, err)
	}
	out, err := schemaFiles.ReadFile("schemas/" + tool + ".output.json")
	if err != nil {
		return nil, fmt.Errorf("%s: no output schema: %w", tool, err)
	}
	return func(t *mcp.Tool) {
		t.InputSchema = mcp.ToolInputSchema{}
		t.RawInputSchema, t.RawOutputSchema = in, out
	}, nil
}
