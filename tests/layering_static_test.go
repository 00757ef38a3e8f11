package tests

// The package structure (docs/architecture.md#packages), read from `go list` and the Go sources:
//
//  1. every package keeps to the row docs/architecture.md gives it: what it may import from the
//     module, what it never reaches, and whether it is pure (no I/O, no wall clock); the table is
//     read from the document, so the document states the rules this file holds;
//  2. prstatus holds one PR's facts: it imports neither the memory across rounds (prstatus/rounds,
//     which builds on it) nor anything that talks to GitHub or MCP;
//  3. the simulated GitHub imports no prmonitor package but GitHub's schema, so it cannot drift
//     towards what prmonitor believes;
//  4. no product package links the fake, its schema or the GraphQL parser: in the binary they
//     come in only through the demo command, whose files nothing else in cmd/prmonitor calls.

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/prmonitor/prmonitor"

// testOnly are the packages that exist for tests and the demo: the fake and its schema.
var testOnly = []string{module + "/prstatus/githubfake", module + "/prstatus/ghschema", "github.com/vektah/gqlparser"}

// deps maps each package of the module to its transitive imports (tests excluded).
func deps(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"/...").Output()
	require.NoError(t, err)
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		m[f[0]] = f[1:]
	}
	require.Contains(t, m, module+"/prstatus/rounds")
	return m
}

func reaches(imports []string, banned string) bool {
	return slices.ContainsFunc(imports, func(d string) bool { return d == banned || strings.HasPrefix(d, banned+"/") })
}

func TestPrstatusImportsNeitherRoundsNorGitHub(t *testing.T) {
	m := deps(t)
	for _, banned := range append([]string{module + "/prstatus/rounds", module + "/prstatus/ghclient", module + "/mcpserver",
		"github.com/shurcooL/githubv4", "github.com/google/go-github", "github.com/mark3labs/mcp-go", "net/http"}, testOnly...) {
		assert.False(t, reaches(m[module+"/prstatus"], banned), "prstatus depends on %s", banned)
	}
	assert.True(t, reaches(m[module+"/prstatus/rounds"], module+"/prstatus"), "rounds builds on prstatus")
	assert.False(t, reaches(m[module+"/prstatus/rounds"], "net/http"), "rounds stays pure")
}

func TestTheFakeImportsNoProductPackage(t *testing.T) {
	m := deps(t)
	fake := module + "/prstatus/githubfake"
	require.Contains(t, m, fake)
	for _, d := range m[fake] {
		if strings.HasPrefix(d, module+"/") {
			assert.Equal(t, module+"/prstatus/ghschema", d, "the fake imports %s", d)
		}
	}
}

func TestOnlyTheDemoLinksTheFake(t *testing.T) {
	m := deps(t)
	cmd := module + "/cmd/prmonitor"
	for pkg, imports := range m {
		if pkg == cmd || pkg == module+"/tests" || slices.Contains(testOnly, pkg) {
			continue
		}
		for _, banned := range testOnly {
			assert.False(t, reaches(imports, banned), "%s links %s", pkg, banned)
		}
	}

	// In the command's own package: the files that import the fake are the demo's, and no other
	// file calls into them but the command table (runDemo, and demoCommand for the usage).
	files, err := filepath.Glob("../cmd/prmonitor/*.go")
	require.NoError(t, err)
	fset := gotoken.NewFileSet()
	demoDecls := map[string]bool{}
	used := map[string][]string{} // identifier -> non-demo files using it
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		demo := strings.HasPrefix(name, "demo")
		for _, imp := range f.Imports {
			for _, banned := range testOnly {
				if strings.HasPrefix(strings.Trim(imp.Path.Value, `"`), banned) {
					assert.True(t, demo, "%s imports %s: only the demo's files (demo*.go) may", name, imp.Path.Value)
				}
			}
		}
		if demo {
			for _, d := range f.Decls {
				for _, n := range declaredNames(d) {
					demoDecls[n] = true
				}
			}
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = append(used[id.Name], name)
			}
			return true
		})
	}
	require.True(t, demoDecls["runDemo"], "the demo command's entry point")
	for n := range demoDecls {
		if n == "runDemo" || n == "demoCommand" {
			assert.Equal(t, []string{"cli.go"}, slices.Compact(used[n]), "%s is used by the command table only", n)
			continue
		}
		assert.Empty(t, used[n], "%s, declared by the demo, is used outside it", n)
	}
}

// declaredNames lists the package-level names a declaration introduces (methods excluded: they
// are reached through their types).
func declaredNames(d ast.Decl) []string {
	var out []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			out = append(out, d.Name.Name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					out = append(out, n.Name)
				}
			}
		}
	}
	return out
}
