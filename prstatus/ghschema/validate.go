package ghschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
)

// Error lists every problem found in one GraphQL document. Its message names each problem with
// its position, one per line, so a failing test says exactly what to fix.
type Error struct {
	// Problems are the parse, validation and variable errors, in the order found.
	Problems gqlerror.List
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("graphql document is not valid against GitHub's schema")
	for _, p := range e.Problems {
		b.WriteString("\n  - ")
		b.WriteString(p.Message)
		if len(p.Locations) > 0 {
			fmt.Fprintf(&b, " (line %d, column %d)", p.Locations[0].Line, p.Locations[0].Column)
		}
		if len(p.Path) > 0 {
			fmt.Fprintf(&b, " at %s", p.Path.String())
		}
	}
	return b.String()
}

// Validate parses doc and checks it against GitHub's schema. When vars is not nil it also checks
// that the variables fit the declared variable types of every operation (a missing required
// variable is a problem then). The error is an *Error listing every problem.
func Validate(doc string, vars map[string]any) error {
	schema, err := Load()
	if err != nil {
		return err
	}
	q, err := parseAndValidate(schema, doc)
	if err != nil {
		return err
	}
	if vars == nil {
		return nil
	}
	var problems gqlerror.List
	for _, op := range q.Operations {
		if _, verr := variableValues(schema, op, vars); verr != nil {
			problems = append(problems, verr)
		}
	}
	if len(problems) > 0 {
		return &Error{Problems: problems}
	}
	return nil
}

// Document is a validated GraphQL document with the operation to run and its variables.
type Document struct {
	Query     *ast.QueryDocument
	Operation *ast.OperationDefinition
	// Variables are the request's variables coerced to the operation's declared types, with
	// defaults applied. JSON numbers arrive as float64 or int64.
	Variables map[string]any
}

// Parse validates doc like Validate, picks the operation to run (operationName when given, else
// the only operation) and coerces vars to its declared variable types. vars may be nil: no
// variables were sent. The caller's vars are never modified.
func Parse(doc, operationName string, vars map[string]any) (*Document, error) {
	schema, err := Load()
	if err != nil {
		return nil, err
	}
	q, err := parseAndValidate(schema, doc)
	if err != nil {
		return nil, err
	}
	op, err := pickOperation(q, operationName)
	if err != nil {
		return nil, err
	}
	coerced, verr := variableValues(schema, op, vars)
	if verr != nil {
		return nil, &Error{Problems: gqlerror.List{verr}}
	}
	return &Document{Query: q, Operation: op, Variables: coerced}, nil
}

func parseAndValidate(schema *ast.Schema, doc string) (*ast.QueryDocument, error) {
	q, err := parser.ParseQuery(&ast.Source{Name: "query", Input: doc})
	if err != nil {
		return nil, &Error{Problems: asList(err)}
	}
	if errs := validator.ValidateWithRules(schema, q, nil); len(errs) > 0 {
		return nil, &Error{Problems: errs}
	}
	return q, nil
}

func pickOperation(q *ast.QueryDocument, name string) (*ast.OperationDefinition, error) {
	if name != "" {
		if op := q.Operations.ForName(name); op != nil {
			return op, nil
		}
		return nil, &Error{Problems: gqlerror.List{gqlerror.Errorf("Unknown operation named %q.", name)}}
	}
	switch len(q.Operations) {
	case 0:
		return nil, &Error{Problems: gqlerror.List{gqlerror.Errorf("The document contains no operation.")}}
	case 1:
		return q.Operations[0], nil
	default:
		return nil, &Error{Problems: gqlerror.List{gqlerror.Errorf("An operation name is required when the document has several operations.")}}
	}
}

// variableValues coerces a copy of vars, so gqlparser's in-place coercion never touches the
// caller's maps, and turns a gqlparser panic on odd input into an error.
func variableValues(schema *ast.Schema, op *ast.OperationDefinition, vars map[string]any) (out map[string]any, problem *gqlerror.Error) {
	defer func() {
		if r := recover(); r != nil {
			out, problem = nil, gqlerror.Errorf("Variables of %s cannot be used: %v", opName(op), r)
		}
	}()
	c, err := deepCopy(vars)
	if err != nil {
		return nil, gqlerror.Errorf("Variables of %s cannot be used: %v", opName(op), err)
	}
	out, err = validator.VariableValues(schema, op, c)
	if err != nil {
		msg := err.Error()
		var ge *gqlerror.Error
		if errors.As(err, &ge) {
			msg = ge.Message
			if len(ge.Path) > 0 {
				msg = fmt.Sprintf("Variable $%s %s", strings.TrimPrefix(ge.Path.String(), "variable."), ge.Message)
			}
		}
		return nil, gqlerror.Errorf("%s (in %s)", msg, opName(op))
	}
	return out, nil
}

func opName(op *ast.OperationDefinition) string {
	if op.Name != "" {
		return fmt.Sprintf("%s %s", op.Operation, op.Name)
	}
	return string(op.Operation)
}

// deepCopy copies vars through JSON, which is also what they look like on the wire.
func deepCopy(vars map[string]any) (map[string]any, error) {
	out := map[string]any{}
	if vars == nil {
		return out, nil
	}
	raw, err := json.Marshal(vars)
	if err != nil {
		return nil, fmt.Errorf("encode variables: %w", err)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("decode variables: %w", err)
	}
	return out, nil
}

func asList(err error) gqlerror.List {
	var list gqlerror.List
	if errors.As(err, &list) {
		return list
	}
	var one *gqlerror.Error
	if errors.As(err, &one) {
		return gqlerror.List{one}
	}
	return gqlerror.List{gqlerror.Wrap(err)}
}
