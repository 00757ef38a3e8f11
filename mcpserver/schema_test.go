package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
)

// compileSchema compiles a JSON Schema 2020-12 document; the compiler checks it against the
// draft's metaschema first.
func compileSchema(raw []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("schema.json")
}

// servedSchemas are each tool's input and output schemas, by tool name.
func servedSchemas(t testing.TB, srv *Server) map[string][2][]byte {
	t.Helper()
	out := map[string][2][]byte{}
	for name, tool := range srv.MCP().ListTools() {
		b, err := json.Marshal(tool.Tool)
		require.NoError(t, err)
		var decoded struct {
			In  json.RawMessage `json:"inputSchema"`
			Out json.RawMessage `json:"outputSchema"`
		}
		require.NoError(t, json.Unmarshal(b, &decoded))
		out[name] = [2][]byte{decoded.In, decoded.Out}
	}
	return out
}

func TestToolSchemasAreJSONSchema2020(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, Dispatch: true})
	require.NoError(t, err)
	for name, s := range servedSchemas(t, srv) {
		for i, kind := range []string{"input", "output"} {
			require.NotEmpty(t, s[i], "%s has an %s schema", name, kind)
			_, err := compileSchema(s[i])
			require.NoError(t, err, "%s's %s schema: %s", name, kind, s[i])
		}
	}
	_, err = compileSchema([]byte(`{"type":"object","properties":{"a":{"type":"strnig"}}}`))
	require.Error(t, err, "the check can fail")
}

// conformance checks every structured result the harness receives against its tool's output
// schema, so the schemas stay true to what the server sends.
type conformance struct {
	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema
}

func (c *conformance) check(t testing.TB, srv *Server, tool string, result any) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.schemas == nil {
		c.schemas = map[string]*jsonschema.Schema{}
		for name, s := range servedSchemas(t, srv) {
			sch, err := compileSchema(s[1])
			require.NoError(t, err)
			c.schemas[name] = sch
		}
	}
	sch := c.schemas[tool]
	require.NotNil(t, sch, "no output schema for %s", tool)
	b, err := json.Marshal(result)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(inst), "%s's result does not match its output schema: %s", tool, clipForMessage(b))
}

func clipForMessage(b []byte) string {
	if len(b) > 2000 {
		return fmt.Sprintf("%s… (%d bytes)", b[:2000], len(b))
	}
	return string(b)
}
