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
	cost   int
	nodes  int
	dryRun bool
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
	c := queryCost{cost: int(math.Round(float64(requests) / 100)), nodes: nodes, dryRun: dryRun}
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
