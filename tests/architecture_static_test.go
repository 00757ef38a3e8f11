package tests

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The package table of docs/architecture.md ("## Packages"), as this file reads it: one rule a
// package (or a tree of packages, "x/..."), and the words its "never reaches" column uses.

// layerRule is one row of the table.
type layerRule struct {
	pkg string // relative to the module; "x/..." is x and every package below it
	// allowed are the module's packages it may import directly; anyModule: any of them.
	allowed   []string
	anyModule bool
	// never are the import patterns it never reaches; stdOnly: nothing outside the standard library.
	never   []string
	stdOnly bool
	pure    bool
}

// reachWords are the words of the "never reaches" column: each stands for import patterns ("x/..."
// is x and everything below it; a pattern without it is that package alone). A word the table uses
// and this map does not know fails the test.
var reachWords = map[string][]string{
	"MCP":                 {"github.com/mark3labs/mcp-go/...", "github.com/modelcontextprotocol/go-sdk/..."},
	"the MCP server":      {module + "/mcpserver"},
	"the stdio engine":    {module + "/mcpserver/monitor", module + "/mcpserver/driver"},
	"GitHub clients":      {"github.com/shurcooL/githubv4/...", "github.com/google/go-github/...", module + "/prstatus/ghclient"},
	"the network":         {"net", "net/http/..."},
	"Temporal":            {"go.temporal.io/..."},
	"the fake":            {module + "/prstatus/githubfake/...", module + "/prstatus/ghschema", "github.com/vektah/gqlparser/..."},
	"the team deployment": {module + "/mcpserver/team/..."},
}

// architectureRules reads the package table from docs/architecture.md.
func architectureRules(t *testing.T) []layerRule {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "architecture.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(raw), "\n## Packages\n")
	require.True(t, ok, "docs/architecture.md has a Packages section")
	section, _, _ = strings.Cut(section, "\n## ")
	code := regexp.MustCompile("`([^`]+)`")
	var rules []layerRule
	inTable := false
	for line := range strings.Lines(section) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break // the first table is the package table
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if !inTable { // the heading
			require.Equal(t, []string{"package", "imports from the module", "never reaches", "pure"}, cells)
			inTable = true
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		require.Len(t, cells, 4, "a row of the package table: %s", line)
		pkg := code.FindStringSubmatch(cells[0])
		require.NotNil(t, pkg, "the row names its package in backquotes: %s", line)
		r := layerRule{pkg: pkg[1], pure: strings.HasPrefix(cells[3], "yes")}
		require.True(t, r.pure || strings.HasPrefix(cells[3], "no"), "pure is yes or no: %s", line)
		imports, _, _ := strings.Cut(cells[1], "(") // what follows in parentheses is a note
		switch {
		case strings.HasPrefix(imports, "any package of the module"):
			r.anyModule = true
		case imports == "nothing":
		default:
			for _, m := range code.FindAllStringSubmatch(imports, -1) {
				r.allowed = append(r.allowed, m[1])
			}
			require.NotEmpty(t, r.allowed, "imports: nothing, any package of the module, or a list: %s", line)
		}
		for _, word := range strings.Split(cells[2], ", ") {
			switch {
			case word == "nothing":
			case word == "anything outside the standard library":
				r.stdOnly = true
			default:
				patterns, ok := reachWords[word]
				require.True(t, ok, "%s: %q is not a word of the legend this test knows", r.pkg, word)
				r.never = append(r.never, patterns...)
			}
		}
		rules = append(rules, r)
	}
	require.Greater(t, len(rules), 10, "the package table is read")
	return rules
}

// matches reports whether an import path matches a pattern ("x/..." is x and below).
func matches(path, pattern string) bool {
	if stem, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == stem || strings.HasPrefix(path, stem+"/")
	}
	return path == pattern
}

// ruleOf is the rule for a package of the module (given relative to the module), or nil.
func ruleOf(rules []layerRule, pkg string) *layerRule {
	for i, r := range rules {
		if matches(pkg, r.pkg) {
			return &rules[i]
		}
	}
	return nil
}

// standard reports whether an import path is the standard library's: its first element has no dot.
func standard(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// directImports maps each package of the module, relative to it, to its direct imports (tests
// excluded).
func directImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	require.NoError(t, err)
	m := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		m[relative(f[0])] = f[1:]
	}
	return m
}

func relative(path string) string {
	if path == module {
		return "."
	}
	return strings.TrimPrefix(path, module+"/")
}

// Every package of the module has a row in docs/architecture.md's package table, and every row
// names a package that exists: a new package is placed in the layers before it is built on.
func TestEveryPackageIsInTheArchitectureTable(t *testing.T) {
	rules := architectureRules(t)
	pkgs := directImports(t)
	for pkg := range pkgs {
		assert.NotNil(t, ruleOf(rules, pkg), "%s has no row in docs/architecture.md#packages", pkg)
	}
	for _, r := range rules {
		assert.True(t, slices.ContainsFunc(slices.Collect(maps.Keys(pkgs)), func(p string) bool { return matches(p, r.pkg) }) ||
			strings.HasSuffix(r.pkg, "/..."), "docs/architecture.md lists %s, which does not exist", r.pkg)
	}
}

// Every package imports from the module only what its row allows, and reaches (through any
// dependency) nothing its row says it never reaches.
func TestEveryPackageKeepsTheImportsArchitectureMdAllows(t *testing.T) {
	rules := architectureRules(t)
	direct := directImports(t)
	all := deps(t)
	for pkg, imports := range direct {
		r := ruleOf(rules, pkg)
		if r == nil {
			continue // TestEveryPackageIsInTheArchitectureTable reports it
		}
		if !r.anyModule {
			for _, imp := range imports {
				if !strings.HasPrefix(imp, module+"/") {
					continue
				}
				assert.Contains(t, r.allowed, relative(imp), "%s imports %s, which docs/architecture.md#packages does not allow it", pkg, relative(imp))
			}
		}
		for _, d := range all[module+"/"+pkg] {
			if r.stdOnly {
				assert.True(t, standard(d) || strings.HasPrefix(d, module+"/"), "%s reaches %s, outside the standard library", pkg, d)
			}
			for _, banned := range r.never {
				assert.False(t, matches(d, banned), "%s reaches %s (%s), which docs/architecture.md#packages says it never does", pkg, d, banned)
			}
		}
	}
}

// impure are the imports that do I/O or read the environment or the clock's randomness: a pure
// package imports none of them.
var impure = []string{"os", "os/exec", "os/signal", "os/user", "io/ioutil", "net", "net/http", "net/rpc", "syscall", "log",
	"log/slog", "crypto/rand", "math/rand", "math/rand/v2", "plugin", "unsafe", "runtime/debug", "path/filepath"}

// clockReads are the calls of package time that read the wall clock or wait on it.
var clockReads = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker", "LoadLocation"}

// The packages docs/architecture.md calls pure do no I/O and read no clock: their sources import
// nothing that does, and call none of time's clock readings (time is passed in).
func TestPurePackagesDoNoIOAndReadNoClock(t *testing.T) {
	rules := architectureRules(t)
	checked := 0
	for _, r := range rules {
		if !r.pure {
			continue
		}
		require.False(t, strings.HasSuffix(r.pkg, "/..."), "a pure row names one package: %s", r.pkg)
		for _, f := range purityFindings(t, filepath.Join("..", filepath.FromSlash(r.pkg))) {
			t.Errorf("%s is pure (docs/architecture.md#packages), yet %s", r.pkg, f)
		}
		checked++
	}
	assert.GreaterOrEqual(t, checked, 5, "statemachine, prstatus, rounds, elicitation, dispatch and text at least")
}

// purityFindings lists, file by file, what in dir's non-test Go files does I/O or reads the clock.
func purityFindings(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files, dir)
	var out []string
	fset := gotoken.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		name := filepath.Base(path)
		timeName := ""
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if slices.Contains(impure, p) {
				out = append(out, name+" imports "+p)
			}
			if p == "time" {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		if timeName == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == timeName && slices.Contains(clockReads, sel.Sel.Name) {
				out = append(out, fset.Position(sel.Pos()).String()+" reads the clock: time."+sel.Sel.Name)
			}
			return true
		})
	}
	return out
}

// The purity check finds what it is meant to: an import that does I/O, and a clock reading under
// any name the file gives package time.
func TestThePurityCheckCanFail(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nimport (\n\t\"os\"\n\tclock \"time\"\n)\n\n"+
		"func f() { _ = os.Getenv(\"X\"); _ = clock.Now() }\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package a\n\nimport \"time\"\n\nvar _ = time.Now()\n"), 0o600))
	got := purityFindings(t, dir)
	require.Len(t, got, 2, "%v", got)
	assert.Equal(t, "a.go imports os", got[0])
	assert.Contains(t, got[1], "reads the clock: time.Now")

	assert.True(t, matches("github.com/mark3labs/mcp-go/server", "github.com/mark3labs/mcp-go/..."))
	assert.True(t, matches("net", "net"))
	assert.False(t, matches("net/url", "net"), "net/url parses, it does not connect")
	assert.False(t, matches(module+"/mcpserver/store", module+"/mcpserver"))
}
