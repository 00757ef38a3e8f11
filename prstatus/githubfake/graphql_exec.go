package githubfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/prmonitor/prmonitor/prstatus/ghschema"
)

// The executor walks a validated document generically: it honours aliases, arguments (literals
// and variables, with defaults), fragments, inline fragments, @skip/@include, __typename, lists
// and null propagation. Values come from one resolver function per GraphQL type
// (graphql_resolvers_*.go); connections are paginated here, uniformly.

// typeResolver answers field of parent, an object of its type. It returns errNotImplemented for
// a field the fake does not model: the executor turns that into a loud GraphQL error.
type typeResolver func(x *execution, parent any, field string, args map[string]any) (any, error)

var errNotImplemented = errors.New("not implemented")

// fieldError is a GraphQL error with GitHub's "type" (NOT_FOUND, FORBIDDEN, ...).
type fieldError struct {
	typ string
	msg string
}

func (e *fieldError) Error() string { return e.msg }

func newFieldError(typ, format string, args ...any) error {
	return &fieldError{typ: typ, msg: fmt.Sprintf(format, args...)}
}

// gqlError is one entry of a response's "errors".
type gqlError struct {
	Type       string         `json:"type,omitempty"`
	Path       []any          `json:"path,omitempty"`
	Locations  []gqlLocation  `json:"locations,omitempty"`
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

type gqlLocation struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// execution is the state of running one operation. It runs with the fake's lock held.
type execution struct {
	f      *Fake
	schema *ast.Schema
	doc    *ghschema.Document
	vars   map[string]any
	now    time.Time
	cost   queryCost
	errs   []gqlError
	// after runs once the lock is released (merge hooks).
	after []func()
}

// run executes the operation and returns the "data" value.
func (x *execution) run() any {
	op := x.doc.Operation
	root := x.schema.Query
	if op.Operation == ast.Mutation {
		root = x.schema.Mutation
	}
	if root == nil {
		x.errs = append(x.errs, gqlError{Message: fmt.Sprintf("githubfake: %s operations are not supported", op.Operation)})
		return nil
	}
	data, ok := x.selectionSet(root.Name, rootValue{}, op.SelectionSet, nil)
	if !ok {
		return nil
	}
	return data
}

type rootValue struct{}

// object is an ordered JSON object, so responses read in the order the document asked.
type object []objectField

type objectField struct {
	key string
	val any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := encodeJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// encodeJSON writes a response tree in one pass. Nested objects are written directly rather
// than through MarshalJSON, which encoding/json would re-validate at every level.
func encodeJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case object:
		b.WriteByte('{')
		for i, f := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeJSON(b, f.key); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := encodeJSON(b, f.val); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case []any:
		b.WriteByte('[')
		for i, it := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeJSON(b, it); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %T: %w", v, err)
	}
	b.Write(raw)
	return nil
}

type fieldGroup struct {
	key    string
	fields []*ast.Field
}

// collect gathers the fields selected on an object of type typeName, by response key, in order.
func (x *execution) collect(typeName string, sel ast.SelectionSet, groups []fieldGroup, visited map[string]bool) []fieldGroup {
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if !x.included(s.Directives) {
				continue
			}
			key := s.Alias
			if key == "" {
				key = s.Name
			}
			found := false
			for i := range groups {
				if groups[i].key == key {
					groups[i].fields = append(groups[i].fields, s)
					found = true
					break
				}
			}
			if !found {
				groups = append(groups, fieldGroup{key: key, fields: []*ast.Field{s}})
			}
		case *ast.InlineFragment:
			if !x.included(s.Directives) || !x.applies(typeName, s.TypeCondition) {
				continue
			}
			groups = x.collect(typeName, s.SelectionSet, groups, visited)
		case *ast.FragmentSpread:
			if !x.included(s.Directives) || visited[s.Name] {
				continue
			}
			def := s.Definition
			if def == nil {
				def = x.doc.Query.Fragments.ForName(s.Name)
			}
			if def == nil || !x.applies(typeName, def.TypeCondition) {
				continue
			}
			visited[s.Name] = true
			groups = x.collect(typeName, def.SelectionSet, groups, visited)
		}
	}
	return groups
}

// applies reports whether a fragment on condition applies to an object of type typeName.
func (x *execution) applies(typeName, condition string) bool {
	if condition == "" || condition == typeName {
		return true
	}
	for _, d := range x.schema.PossibleTypes[condition] {
		if d.Name == typeName {
			return true
		}
	}
	return false
}

// included evaluates @skip and @include.
func (x *execution) included(dirs ast.DirectiveList) bool {
	for _, d := range dirs {
		if d.Name != "skip" && d.Name != "include" {
			continue
		}
		arg := d.Arguments.ForName("if")
		if arg == nil {
			continue
		}
		v, err := arg.Value.Value(x.vars)
		b, _ := v.(bool)
		if err != nil {
			continue
		}
		if d.Name == "skip" && b {
			return false
		}
		if d.Name == "include" && !b {
			return false
		}
	}
	return true
}

// selectionSet executes sel on obj. ok is false when a non-null field failed, so obj itself must
// become null.
func (x *execution) selectionSet(typeName string, obj any, sel ast.SelectionSet, path []any) (object, bool) {
	groups := x.collect(typeName, sel, nil, map[string]bool{})
	out := make(object, 0, len(groups))
	for _, g := range groups {
		v, ok := x.field(typeName, obj, g, appendPath(path, g.key))
		if !ok {
			return nil, false
		}
		out = append(out, objectField{key: g.key, val: v})
	}
	return out, true
}

func appendPath(path []any, elem any) []any {
	p := make([]any, len(path), len(path)+1)
	copy(p, path)
	return append(p, elem)
}

func (x *execution) field(typeName string, obj any, g fieldGroup, path []any) (any, bool) {
	f := g.fields[0]
	if f.Name == "__typename" {
		return typeName, true
	}
	if f.Definition == nil {
		x.fail(f, path, newFieldError("", "githubfake: %s.%s has no definition", typeName, f.Name))
		return nil, true
	}
	typ := f.Definition.Type
	args, err := argMap(f, x.vars)
	if err != nil {
		x.fail(f, path, err)
		return nil, !typ.NonNull
	}
	raw, err := x.resolve(typeName, obj, f.Name, args)
	if err == nil {
		if src, isConn := raw.(connSource); isConn {
			raw, err = paginate(typ.Name(), f.Name, src, args)
		}
	}
	if err != nil {
		x.fail(f, path, err)
		return nil, !typ.NonNull
	}
	return x.complete(typ, g.fields, raw, path)
}

func (x *execution) fail(f *ast.Field, path []any, err error) {
	e := gqlError{Path: path, Message: err.Error()}
	if f != nil && f.Position != nil {
		e.Locations = []gqlLocation{{Line: f.Position.Line, Column: f.Position.Column}}
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		e.Type = fe.typ
	}
	x.errs = append(x.errs, e)
}

// resolve finds the value of one field: connection plumbing and static objects first, then the
// type's resolver.
func (x *execution) resolve(typeName string, obj any, field string, args map[string]any) (v any, err error) {
	defer func() {
		// A resolver bug must not take the test process down: report it as a GraphQL error.
		if r := recover(); r != nil {
			v, err = nil, newFieldError(ErrTypeInternal, "githubfake: internal error resolving %s.%s: %v", typeName, field, r)
		}
	}()
	switch o := obj.(type) {
	case *connPage:
		v, err = o.field(x, field)
	case edge:
		v, err = o.field(field)
	case *staticObject:
		var ok bool
		if v, ok = o.fields[field]; !ok {
			err = errNotImplemented
		}
	default:
		r, ok := x.f.resolvers[typeName]
		if !ok {
			err = errNotImplemented
		} else {
			v, err = r(x, obj, field, args)
		}
	}
	if errors.Is(err, errNotImplemented) {
		return nil, newFieldError("", "githubfake: %s.%s is not implemented", typeName, field)
	}
	return v, err
}

// complete turns a resolved value into JSON of the field's type; ok is false when a null must
// propagate to the parent.
func (x *execution) complete(typ *ast.Type, fields []*ast.Field, v any, path []any) (any, bool) {
	if isNil(v) {
		if typ.NonNull {
			x.fail(fields[0], path, newFieldError("", "Cannot return null for non-nullable field %s", fields[0].Name))
			return nil, false
		}
		return nil, true
	}
	if typ.Elem != nil {
		items, ok := v.([]any)
		if !ok {
			x.fail(fields[0], path, newFieldError("", "githubfake: %s is not a list", fields[0].Name))
			return nil, !typ.NonNull
		}
		out := make([]any, len(items))
		for i, it := range items {
			cv, ok := x.complete(typ.Elem, fields, it, appendPath(path, i))
			if !ok {
				return nil, !typ.NonNull
			}
			out[i] = cv
		}
		return out, true
	}
	def := x.schema.Types[typ.NamedType]
	if def == nil {
		return nil, !typ.NonNull
	}
	switch def.Kind {
	case ast.Scalar, ast.Enum:
		return scalar(v), true
	}
	concrete := def.Name
	if def.Kind != ast.Object {
		concrete = typeName(v)
	}
	var sel ast.SelectionSet
	for _, f := range fields {
		sel = append(sel, f.SelectionSet...)
	}
	obj, ok := x.selectionSet(concrete, v, sel, path)
	if !ok {
		return nil, !typ.NonNull
	}
	return obj, true
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface, reflect.Func:
		return rv.IsNil()
	}
	return false
}

// scalar serialises a scalar or enum value.
func scalar(v any) any {
	switch v := v.(type) {
	case time.Time:
		return v.UTC().Format(time.RFC3339)
	case fmt.Stringer:
		return v.String()
	}
	return v
}

// argMap evaluates a field's arguments: literals, variables and defaults.
func argMap(f *ast.Field, vars map[string]any) (out map[string]any, err error) {
	out = map[string]any{}
	if f.Definition == nil {
		return out, nil
	}
	for _, def := range f.Definition.Arguments {
		if a := f.Arguments.ForName(def.Name); a != nil && a.Value != nil {
			if a.Value.Kind == ast.Variable {
				if v, ok := vars[a.Value.Raw]; ok {
					out[def.Name] = v
				}
				continue
			}
			v, verr := a.Value.Value(vars)
			if verr != nil {
				return nil, fmt.Errorf("argument %s: %w", def.Name, verr)
			}
			out[def.Name] = v
			continue
		}
		if def.DefaultValue != nil {
			v, verr := def.DefaultValue.Value(vars)
			if verr != nil {
				return nil, fmt.Errorf("default of argument %s: %w", def.Name, verr)
			}
			out[def.Name] = v
		}
	}
	return out, nil
}

// staticObject is a value the fake builds on the fly (payloads, page info, small sub-objects):
// its fields are plain values.
type staticObject struct {
	typ    string
	fields map[string]any
}

func static(typ string, fields map[string]any) *staticObject {
	return &staticObject{typ: typ, fields: fields}
}
