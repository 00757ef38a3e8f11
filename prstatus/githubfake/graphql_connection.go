package githubfake

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Connections follow GitHub's rules: first or last is required, 1..100, not both; after and before
// are opaque cursors. Resolvers return a connSource with every item; paginate cuts the page.

// maxPage is GitHub's largest first/last.
const maxPage = 100

// connSource is every item of a connection, plus any connection-level fields beyond the standard
// ones (e.g. StatusCheckRollupContextConnection.checkRunCount).
type connSource struct {
	items []any
	extra map[string]any
}

func conn(items []any) connSource { return connSource{items: items} }

// connPage is one page of a connection.
type connPage struct {
	typ        string
	src        connSource
	start, end int // the page is src.items[start:end]
}

type edge struct {
	typ    string
	node   any
	cursor string
}

func (e edge) field(name string) (any, error) {
	switch name {
	case "node":
		return e.node, nil
	case "cursor":
		return e.cursor, nil
	}
	return nil, errNotImplemented
}

func cursorOf(i int) string {
	return base64.StdEncoding.EncodeToString([]byte("cursor:v2:" + strconv.Itoa(i+1)))
}

// decodeCursor returns the index of the item a cursor points at.
func decodeCursor(c string) (int, bool) {
	raw, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	n, ok := strings.CutPrefix(string(raw), "cursor:v2:")
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 {
		return 0, false
	}
	return i - 1, true
}

// paginate applies first/last/after/before (and skip, where the field has it) to src.
func paginate(connType, field string, src connSource, args map[string]any) (*connPage, error) {
	first, hasFirst := argInt(args, "first")
	last, hasLast := argInt(args, "last")
	switch {
	case !hasFirst && !hasLast:
		return nil, newFieldError("", "You must provide a `first` or `last` value to properly paginate the `%s` connection.", field)
	case hasFirst && hasLast:
		return nil, newFieldError("", "Passing both `first` and `last` to paginate the `%s` connection is not supported.", field)
	case hasFirst && (first < 1 || first > maxPage):
		return nil, pageSizeError(field, "first", first)
	case hasLast && (last < 1 || last > maxPage):
		return nil, pageSizeError(field, "last", last)
	}
	start, end := 0, len(src.items)
	if after, ok := args["after"].(string); ok {
		i, valid := decodeCursor(after)
		if !valid {
			return nil, newFieldError("", "`%s` does not appear to be a valid cursor.", after)
		}
		start = min(i+1, end)
	}
	if before, ok := args["before"].(string); ok {
		i, valid := decodeCursor(before)
		if !valid {
			return nil, newFieldError("", "`%s` does not appear to be a valid cursor.", before)
		}
		end = max(min(i, end), start)
	}
	if skip, ok := argInt(args, "skip"); ok && skip > 0 {
		start = min(start+skip, end)
	}
	if hasFirst && end-start > first {
		end = start + first
	}
	if hasLast && end-start > last {
		start = end - last
	}
	return &connPage{typ: connType, src: src, start: start, end: end}, nil
}

func pageSizeError(field, arg string, n int) error {
	if n < 1 {
		return newFieldError("", "`%s` on the `%s` connection cannot be less than one.", arg, field)
	}
	return newFieldError("", "Requesting %d records on the `%s` connection exceeds the `%s` limit of %d records.", n, field, arg, maxPage)
}

func (p *connPage) field(x *execution, name string) (any, error) {
	switch name {
	case "totalCount":
		return len(p.src.items), nil
	case "nodes":
		return append([]any(nil), p.src.items[p.start:p.end]...), nil
	case "edges":
		edgeType := x.edgeType(p.typ)
		out := make([]any, 0, p.end-p.start)
		for i := p.start; i < p.end; i++ {
			out = append(out, edge{typ: edgeType, node: p.src.items[i], cursor: cursorOf(i)})
		}
		return out, nil
	case "pageInfo":
		info := map[string]any{
			"hasNextPage":     p.end < len(p.src.items),
			"hasPreviousPage": p.start > 0,
			"startCursor":     nil,
			"endCursor":       nil,
		}
		if p.end > p.start {
			info["startCursor"] = cursorOf(p.start)
			info["endCursor"] = cursorOf(p.end - 1)
		}
		return static("PageInfo", info), nil
	}
	if v, ok := p.src.extra[name]; ok {
		return v, nil
	}
	return nil, errNotImplemented
}

// edgeType is the type of a connection's edges, from the schema.
func (x *execution) edgeType(connType string) string {
	if def := x.schema.Types[connType]; def != nil {
		if f := def.Fields.ForName("edges"); f != nil {
			return f.Type.Name()
		}
	}
	return strings.TrimSuffix(connType, "Connection") + "Edge"
}

// argInt reads an integer argument, whatever numeric type it arrived as.
func argInt(args map[string]any, name string) (int, bool) {
	switch v := args[name].(type) {
	case int:
		return v, true
	case int32:
		return int(v), true
	case int64:
		return int(v), true
	case float64:
		return int(v), true
	case string:
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}

func argString(args map[string]any, name string) (string, bool) {
	s, ok := args[name].(string)
	return s, ok
}

func argBool(args map[string]any, name string) (bool, bool) {
	b, ok := args[name].(bool)
	return b, ok
}

func argStrings(args map[string]any, name string) []string {
	var out []string
	switch v := args[name].(type) {
	case []any:
		for _, s := range v {
			if s, ok := s.(string); ok {
				out = append(out, s)
			}
		}
	case []string:
		out = append(out, v...)
	case string:
		out = append(out, v)
	}
	return out
}

func argObject(args map[string]any, name string) map[string]any {
	m, _ := args[name].(map[string]any)
	return m
}
