package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/tailscale/hujson"
)

// jsonDoc is a host's JSON or JSONC configuration file edited in place: setup changes the members
// it owns and leaves every other byte alone, comments, order, trailing commas and indentation
// included. tailscale/hujson parses JSONC exactly (whitespace and comments are kept in the tree)
// and moves the comments next to a member along with it; the whitespace of what setup inserts is
// matched here to the file's own style.
type jsonDoc struct {
	root hujson.Value
	bom  bool   // the file began with a UTF-8 byte order mark (VS Code may write one)
	nl   string // "\n", or "\r\n" for a file with Windows line ends
	unit string // one level of indentation, as the file has it
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseJSONDoc reads a configuration file. Empty (or only whitespace) is an empty object; anything
// but an object at the top, or text that is not JSON (with comments and trailing commas, as VS
// Code allows), is an error that says where.
func parseJSONDoc(data []byte) (*jsonDoc, error) {
	d := &jsonDoc{nl: "\n", unit: "  "}
	if bytes.HasPrefix(data, utf8BOM) {
		d.bom, data = true, data[len(utf8BOM):]
	}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}" + d.nl)
	}
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New("not a JSON object at the top level")
	}
	d.root = v
	if len(obj.Members) > 0 {
		if u := lineIndent(obj.Members[0].Name.BeforeExtra); u != "" {
			d.unit = u
		}
	}
	return d, nil
}

// bytes is the file's new content.
func (d *jsonDoc) bytes() []byte {
	out := d.root.Pack()
	if d.bom {
		out = append(append([]byte(nil), utf8BOM...), out...)
	}
	return out
}

// object finds the object at path (member names from the top); ok is false when a member on the
// way is missing. A member on the way that is not an object is an error: setup never replaces
// what it does not understand.
func (d *jsonDoc) object(path ...string) (obj *hujson.Object, ok bool, err error) {
	cur := &d.root
	for i, name := range path {
		o := cur.Value.(*hujson.Object)
		m := member(o, name)
		if m == nil {
			return nil, false, nil
		}
		if _, isObj := m.Value.Value.(*hujson.Object); !isObj {
			return nil, false, fmt.Errorf("%q is not a JSON object", strings.Join(path[:i+1], "."))
		}
		cur = &m.Value
	}
	return cur.Value.(*hujson.Object), true, nil
}

// get decodes the member at path into a plain Go value (nil when missing).
func (d *jsonDoc) get(path ...string) (any, error) {
	parent, ok, err := d.object(path[:len(path)-1]...)
	if err != nil || !ok {
		return nil, err
	}
	m := member(parent, path[len(path)-1])
	if m == nil {
		return nil, nil
	}
	return decodeValue(m.Value)
}

// set makes the member at path equal value, creating the objects on the way. An existing member
// whose value is already equal is left as it is, byte for byte; changed reports whether anything
// was written.
func (d *jsonDoc) set(value any, path ...string) (changed bool, err error) {
	for i := 1; i < len(path); i++ { // the objects on the way
		if _, ok, err := d.object(path[:i]...); err != nil {
			return false, err
		} else if !ok {
			return true, d.add(path[:i-1], path[i-1], buildObject(path[i:], value))
		}
	}
	parentPath, name := path[:len(path)-1], path[len(path)-1]
	parent, _, err := d.object(parentPath...)
	if err != nil {
		return false, err
	}
	m := member(parent, name)
	if m == nil {
		return true, d.add(parentPath, name, value)
	}
	have, err := decodeValue(m.Value)
	if err != nil {
		return false, err
	}
	if equalJSON(have, value) {
		return false, nil
	}
	text, err := d.encode(value, lineIndent(m.Name.BeforeExtra))
	if err != nil {
		return false, err
	}
	nv, err := hujson.Parse(text)
	if err != nil {
		return false, err
	}
	m.Value.Value = nv.Value // keep the whitespace and comments around the old value
	return true, nil
}

// remove deletes the member at path; removed is false when it was not there.
func (d *jsonDoc) remove(path ...string) (removed bool, err error) {
	parent, ok, err := d.object(path[:len(path)-1]...)
	if err != nil || !ok {
		return false, err
	}
	m := member(parent, path[len(path)-1])
	if m == nil {
		return false, nil
	}
	wasLast := m == &parent.Members[len(parent.Members)-1]
	trailingComma := wasLast && m.Value.AfterExtra != nil
	closeOnOwnLine, closeIndent := bytes.ContainsRune(parent.AfterExtra, '\n'), lineIndent(parent.AfterExtra)
	patch, err := json.Marshal([]map[string]string{{"op": "remove", "path": pointer(path)}})
	if err != nil {
		return false, err
	}
	if err := d.root.Patch(patch); err != nil {
		return false, err
	}
	n := len(parent.Members)
	if trailingComma && n > 0 && parent.Members[n-1].Value.AfterExtra == nil { // keep the file's trailing comma
		parent.Members[n-1].Value.AfterExtra = hujson.Extra{}
	}
	switch {
	case n == 0 && len(bytes.TrimSpace(parent.AfterExtra)) == 0: // emptied, no comment left: {}
		parent.AfterExtra = nil
	case closeOnOwnLine: // a comment that trailed the removed member moved here: the brace stays put
		parent.AfterExtra = atLineStart(parent.AfterExtra, d.nl, closeIndent)
	}
	return true, nil
}

// add inserts a new member at the end of the object at parentPath (which exists), indented as
// its siblings are, or one level deeper than the object itself.
func (d *jsonDoc) add(parentPath []string, name string, value any) error {
	parent, _, err := d.object(parentPath...)
	if err != nil {
		return err
	}
	multiline := d.multiline()
	outer := strings.Repeat(d.unit, len(parentPath)) // the indentation of the parent's closing brace
	indent := outer + d.unit
	trailingComma := false
	if n := len(parent.Members); n > 0 {
		if s := lineIndent(parent.Members[0].Name.BeforeExtra); s != "" {
			indent = s
		}
		trailingComma = parent.Members[n-1].Value.AfterExtra != nil
	} else if s := lineIndent(parent.AfterExtra); s != "" {
		outer, indent = s, s+d.unit
	}
	if !multiline {
		indent = ""
	}
	text, err := d.encode(value, indent)
	if err != nil {
		return err
	}
	ptr, err := json.Marshal(pointer(append(slices.Clone(parentPath), name)))
	if err != nil {
		return err
	}
	// Spelled out, not marshalled: encoding/json would compact the laid-out value.
	op := `[{"op": "add", "path": ` + string(ptr) + `, "value": ` + string(text) + `}]`
	if err := d.root.Patch([]byte(op)); err != nil {
		return err
	}
	m := &parent.Members[len(parent.Members)-1]
	m.Value.BeforeExtra = hujson.Extra(" ")
	if trailingComma {
		m.Value.AfterExtra = hujson.Extra{}
	}
	if !multiline {
		if len(parent.Members) > 1 {
			m.Name.BeforeExtra = hujson.Extra(" ")
		}
		return nil
	}
	m.Name.BeforeExtra = atLineStart(m.Name.BeforeExtra, d.nl, indent)
	parent.AfterExtra = atLineStart(parent.AfterExtra, d.nl, outer)
	return nil
}

// multiline tells a file laid out over lines from one written on a single line.
func (d *jsonDoc) multiline() bool {
	obj := d.root.Value.(*hujson.Object)
	if len(obj.Members) == 0 {
		return true
	}
	return bytes.Contains(d.root.Pack(), []byte("\n"))
}

// encode writes value as JSON text laid out for a member indented by indent (compact when indent
// is empty and the file is on one line).
func (d *jsonDoc) encode(value any, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a command path may hold & or <
	if d.multiline() {
		enc.SetIndent(indent, d.unit)
	}
	if err := enc.Encode(value); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	if d.nl != "\n" {
		out = bytes.ReplaceAll(out, []byte("\n"), []byte(d.nl))
	}
	return out, nil
}

// atLineStart makes extra (whitespace and comments before a member or a closing brace) end with
// a line break and then indent, keeping its comments.
func atLineStart(extra hujson.Extra, nl, indent string) hujson.Extra {
	s := strings.TrimRight(string(extra), " \t")
	if !strings.HasSuffix(s, "\n") {
		s += nl
	}
	return hujson.Extra(s + indent)
}

// lineIndent is the whitespace after the last line break in extra: how far the next token is
// indented ("" when extra has no line break).
func lineIndent(extra hujson.Extra) string {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return ""
	}
	rest := extra[i+1:]
	n := 0
	for n < len(rest) && (rest[n] == ' ' || rest[n] == '\t') {
		n++
	}
	return string(rest[:n])
}

func member(obj *hujson.Object, name string) *hujson.ObjectMember {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i]
		}
	}
	return nil
}

// buildObject nests value under the names: buildObject(["a", "b"], v) is {"a": {"b": v}}.
func buildObject(names []string, value any) any {
	if len(names) == 0 {
		return value
	}
	return map[string]any{names[0]: buildObject(names[1:], value)}
}

// pointer is the RFC 6901 JSON pointer to path.
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/")
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}

// decodeValue turns a member's value (comments allowed) into plain Go values.
func decodeValue(v hujson.Value) (any, error) {
	std, err := hujson.Standardize(v.Pack())
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal(std, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// equalJSON compares two values as JSON: {"args": ["serve"]} equals map{"args": []string{"serve"}}.
func equalJSON(a, b any) bool {
	norm := func(v any) any {
		raw, err := json.Marshal(v)
		if err != nil {
			return v
		}
		var out any
		_ = json.Unmarshal(raw, &out)
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// holdsNothingBut tells whether the document is nothing but empty objects along path ({} or
// {"mcpServers": {}}), without a comment anywhere: a file with nothing of the user's in it.
func (d *jsonDoc) holdsNothingBut(path ...string) bool {
	if hasComment(d.root) {
		return false
	}
	v, err := decodeValue(d.root)
	if err != nil {
		return false
	}
	for i := len(path); i >= 0; i-- {
		if equalJSON(v, buildObject(path[:i], map[string]any{})) {
			return true
		}
	}
	return false
}

// hasComment tells whether v holds a comment: its text without whitespace and commas (the
// trailing commas JSONC allows) differs from the standard JSON it stands for.
func hasComment(v hujson.Value) bool {
	std := v.Clone()
	std.Standardize()
	strip := func(b []byte) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) || r == ',' {
				return -1
			}
			return r
		}, string(b))
	}
	return strip(v.Pack()) != strip(std.Pack())
}
