package statemachine

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodeWriters may set a position's node: looplab's enter_state callback (every move of a step),
// New (a new monitor starts idle) and migrate (a saved position of an older version is placed).
var nodeWriters = map[string]bool{"enterNode": true, "New": true, "migrate": true}

// TestOnlyTheFSMChangesTheNode is the static half of "no move the table does not name": outside
// the functions above, nothing in the package assigns Position.Node, builds a Position with a
// node, or takes the node's address. So a step's node changes only in looplab's enter_state
// callback, that is, only by firing a row of the table; the random walks and the fuzzer check
// every step's moves against the table (checkMoves) for the dynamic half.
func TestOnlyTheFSMChangesTheNode(t *testing.T) {
	writes := nodeWrites(t, nil)
	writers := map[string]bool{}
	for _, w := range writes {
		writers[w.fn] = true
		assert.True(t, nodeWriters[w.fn], "%s sets a position's node in %s; only a move of the table may (fire a row)", w.at, w.fn)
	}
	assert.True(t, writers["enterNode"], "the check must see the callback's own write, or it is blind")
}

// TestTheNodeWriteCheckCanFail proves the check catches each way of writing the node.
func TestTheNodeWriteCheckCanFail(t *testing.T) {
	sneaky := `package statemachine
func sneakyAssign(s *step) { s.pos.Node = NodePolling }
func sneakyLiteral() Position { return Position{Version: PositionVersion, Node: NodeStopped} }
func sneakyPointer(p *Position) { n := &p.Node; *n = NodeIdle }
func sneakyCopy(s *step) { p := s.pos; p.Node, p.Head = NodeIdle, ""; s.pos = p }
func harmless(a *Action) { a.Node = NodePolling }
`
	found := map[string]bool{}
	for _, w := range nodeWrites(t, &sneaky) {
		found[w.fn] = true
	}
	for _, fn := range []string{"sneakyAssign", "sneakyLiteral", "sneakyPointer", "sneakyCopy"} {
		assert.True(t, found[fn], "%s writes the node unseen", fn)
	}
	assert.False(t, found["harmless"], "an action's node is not the position's")
}

type nodeWrite struct {
	fn string
	at token.Position
}

// nodeWrites type-checks the package's own (non-test) files, plus extra when given, and lists
// every place that writes Position.Node.
func nodeWrites(t *testing.T, extra *string) []nodeWrite {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	if extra != nil {
		f, err := parser.ParseFile(fset, "extra.go", *extra, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: exportImporter(t, fset)}
	_, err = conf.Check("github.com/prmonitor/prmonitor/statemachine", fset, files, info)
	require.NoError(t, err)

	isPosition := func(tv types.Type) bool {
		if p, ok := tv.(*types.Pointer); ok {
			tv = p.Elem()
		}
		n, ok := tv.(*types.Named)
		return ok && n.Obj().Name() == "Position" && n.Obj().Pkg().Name() == "statemachine"
	}
	isNodeField := func(e ast.Expr) bool {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Node" {
			return false
		}
		s, ok := info.Selections[sel]
		return ok && s.Kind() == types.FieldVal && isPosition(s.Recv())
	}
	var out []nodeWrite
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			report := func(n ast.Node) { out = append(out, nodeWrite{fd.Name.Name, fset.Position(n.Pos())}) }
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.AssignStmt:
					for _, l := range x.Lhs {
						if isNodeField(l) {
							report(l)
						}
					}
				case *ast.UnaryExpr:
					if x.Op == token.AND && isNodeField(x.X) {
						report(x)
					}
				case *ast.CompositeLit:
					if tv, ok := info.Types[x]; ok && isPosition(tv.Type) {
						for _, el := range x.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								if id, ok := kv.Key.(*ast.Ident); ok && id.Name == "Node" {
									report(kv)
								}
							}
						}
					}
				}
				return true
			})
		}
	}
	return out
}

// exportImporter imports the package's dependencies from the compiler's export data, as go list
// reports it (built and cached by the go command).
func exportImporter(t *testing.T, fset *token.FileSet) types.Importer {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}", ".").Output()
	require.NoError(t, err)
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, os.ErrNotExist
		}
		return os.Open(file)
	})
}
