package githubfake

import (
	"math"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/prmonitor/prmonitor/prstatus/ghschema"
)

// queryCost is GitHub's documented estimate: one request per connection page, multiplied by the
// pages of the connections around it; cost is requests/100 rounded, at least 1. nodes is the
// most nodes the query may return.
type queryCost struct {
	cost     int
	requests int
	nodes    int
	dryRun   bool
}

func costOf(x *execution, doc *ghschema.Document) queryCost {
	var requests, nodes int
	var dryRun bool
	var walk func(sel ast.SelectionSet, mult int, depth int)
	walk = func(sel ast.SelectionSet, mult int, depth int) {
		if depth > 64 {
			return
		}
		for _, s := range sel {
			switch s := s.(type) {
			case *ast.Field:
				args, _ := argMap(s, x.vars)
				if s.Name == "rateLimit" {
					if b, ok := argBool(args, "dryRun"); ok && b {
						dryRun = true
					}
				}
				inner := mult
				if s.Definition != nil && isConnection(x, s.Definition.Type.Name()) {
					n, ok := argInt(args, "first")
					if !ok {
						n, _ = argInt(args, "last")
					}
					n = max(min(n, maxPage), 1)
					requests += mult
					nodes += mult * n
					inner = mult * n
				}
				walk(s.SelectionSet, inner, depth+1)
			case *ast.InlineFragment:
				walk(s.SelectionSet, mult, depth+1)
			case *ast.FragmentSpread:
				if def := doc.Query.Fragments.ForName(s.Name); def != nil {
					walk(def.SelectionSet, mult, depth+1)
				}
			}
		}
	}
	walk(doc.Operation.SelectionSet, 1, 0)
	c := queryCost{cost: int(math.Round(float64(requests) / 100)), requests: requests, nodes: nodes, dryRun: dryRun}
	if c.cost < 1 {
		c.cost = 1
	}
	return c
}

func isConnection(x *execution, typeName string) bool {
	if !strings.HasSuffix(typeName, "Connection") {
		return false
	}
	def := x.schema.Types[typeName]
	return def != nil && def.Fields.ForName("pageInfo") != nil
}

// DocumentCost is the point cost GitHub's published formula gives a query document with its
// variables, as the fake charges it: add one request for each connection (first or last, 1 to
// 100, or 1 without them), multiplied by the page sizes of the connections around it; the cost is
// that sum divided by 100 and rounded, at least 1. requests is the sum before dividing. Tests use
// it to hold every document prmonitor sends to its price.
func DocumentCost(doc string, vars map[string]any) (cost, requests int, err error) {
	d, err := ghschema.Parse(doc, "", vars)
	if err != nil {
		return 0, 0, err
	}
	schema, err := ghschema.Load()
	if err != nil {
		return 0, 0, err
	}
	x := &execution{schema: schema, doc: d, vars: d.Variables}
	c := costOf(x, d)
	return c.cost, c.requests, nil
}
