package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	textmessage "golang.org/x/text/message"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// A call's arguments are checked against its tool's input schema before the handler runs, and each
// problem reads as one sentence that names the field, what was given and what is allowed:
//
//	event "bogus_event" is not one of: ready, user_chose, comment_addressed, …
//	missing required field "event"
//	unknown field "extra"; the fields are: monitor_id, event, choice, question_seq, data
//
// mcp-go checks arguments too (WithInputSchemaValidation) but renders the validator's Go structs
// (<root>: &{Missing:[event]}); the server does the check itself instead, with the same validator.

// inputCheck checks one tool's arguments; its schema is compiled on the tool's first call.
type inputCheck struct {
	tool     string
	raw      []byte
	once     sync.Once
	schema   *jsonschema.Schema
	document map[string]any // the schema as JSON, to name the fields of an object
}

func newInputCheck(t mcp.Tool) (*inputCheck, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	var decoded struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Name, err)
	}
	return &inputCheck{tool: t.Name, raw: decoded.InputSchema}, nil
}

// wrap checks a call's arguments before h runs; a call that fails the check gets a tool error.
func (c *inputCheck) wrap(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if problem := c.check(req.Params.Arguments); problem != "" {
			return ToolError(problem), nil
		}
		return h(ctx, req)
	}
}

// check returns what is wrong with args, "" when nothing is.
func (c *inputCheck) check(args any) string {
	c.once.Do(c.compile)
	if c.schema == nil {
		return "" // cannot happen with the embedded schemas (TestToolSchemasAreJSONSchema2020)
	}
	value, err := argumentsValue(args)
	if err != nil {
		return "the arguments are not a JSON object: " + text.Error(err)
	}
	if _, ok := value.(map[string]any); !ok {
		return fmt.Sprintf("the arguments are %s, not an object of named fields", given(value))
	}
	var verr *jsonschema.ValidationError
	if err := c.schema.Validate(value); errors.As(err, &verr) {
		var problems []string
		for _, leaf := range leaves(verr) {
			if p := c.describe(leaf, value); !slices.Contains(problems, p) {
				problems = append(problems, p)
			}
		}
		return strings.Join(problems, "; ")
	} else if err != nil {
		return "the arguments could not be checked: " + text.Error(err)
	}
	return ""
}

func (c *inputCheck) compile() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.raw))
	if err != nil {
		return
	}
	comp := jsonschema.NewCompiler()
	url := "mem:///prmonitor/" + c.tool + ".input.json"
	if comp.AddResource(url, doc) != nil {
		return
	}
	if s, err := comp.Compile(url); err == nil {
		c.schema = s
	}
	c.document, _ = doc.(map[string]any)
}

// argumentsValue is the call's arguments as the validator reads JSON (missing: an empty object).
func argumentsValue(args any) (any, error) {
	if args == nil {
		return map[string]any{}, nil
	}
	raw, ok := args.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(args); err != nil {
			return nil, err
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// leaves are the validation errors that say what is wrong (the others group them).
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, cause := range e.Causes {
		out = append(out, leaves(cause)...)
	}
	return out
}

// english renders the validator's own words for the problems without a sentence of ours.
var english = textmessage.NewPrinter(language.English)

// describe says what one leaf error means, naming the field.
func (c *inputCheck) describe(e *jsonschema.ValidationError, args any) string {
	at := e.InstanceLocation
	field := strings.Join(at, ".")
	value := valueAt(args, at)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		names := make([]string, len(k.Missing))
		for i, m := range k.Missing {
			names[i] = fmt.Sprintf("%q", strings.Join(append(slices.Clone(at), m), "."))
		}
		return "missing required " + text.Plural(len(names), "field ", "fields ") + strings.Join(names, ", ")
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
		}
		return fmt.Sprintf("%s %s is not one of: %s", field, given(k.Got), strings.Join(want, ", "))
	case *kind.AdditionalProperties:
		names := make([]string, len(k.Properties))
		for i, p := range k.Properties {
			names[i] = fmt.Sprintf("%q", strings.Join(append(slices.Clone(at), p), "."))
		}
		where := "the fields are"
		if field != "" {
			where = field + "'s fields are"
		}
		return fmt.Sprintf("unknown %s%s; %s: %s", text.Plural(len(names), "field ", "fields "), strings.Join(names, ", "), where,
			strings.Join(c.fieldsAt(at), ", "))
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = typeWords(w)
		}
		return fmt.Sprintf("%s is %s, not %s", orArguments(field), given(value), strings.Join(want, " or "))
	}
	return fmt.Sprintf("%s: %s", orArguments(field), e.ErrorKind.LocalizedString(english))
}

// fieldsAt names the properties the schema gives the object at location at, in schema order
// as JSON keeps it (sorted).
func (c *inputCheck) fieldsAt(at []string) []string {
	node := c.document
	for _, seg := range at {
		props, _ := node["properties"].(map[string]any)
		node, _ = props[seg].(map[string]any)
	}
	props, _ := node["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// valueAt is the value at location at in v (nil when there is none).
func valueAt(v any, at []string) any {
	for _, seg := range at {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[seg]
	}
	return v
}

// given renders a value an agent sent: a string quoted, anything else as JSON, long ones cut.
func given(v any) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("%q", text.ClipBytes(t, 80))
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case nil:
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return text.ClipBytes(string(b), 80)
}

// typeWords is a JSON Schema type as a sentence says it.
func typeWords(t string) string {
	switch t {
	case "object":
		return "an object"
	case "array":
		return "a list"
	case "integer":
		return "an integer"
	case "null":
		return "null"
	case "boolean":
		return "true or false"
	}
	return "a " + t
}

func orArguments(field string) string {
	if field == "" {
		return "the arguments"
	}
	return field
}
