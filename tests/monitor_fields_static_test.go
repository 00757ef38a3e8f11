package tests

import (
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	gotoken "go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stdio server's monitor (mcpserver/monitor's Monitor) is used through its methods
// (docs/architecture.md, "One next_step call"): its fields and its mutex are touched in monitor.go
// alone; the rest of its package reads only ID and Ref, which never change (other packages see
// no other field). This file holds that with the type checker, over the package's
// sources (tests excluded) and its dependencies' export data.

// monitorReadable are the fields of monitor other files may read.
var monitorReadable = []string{"ID", "Ref"}

// exportData maps each dependency of the package in dir to its compiled export data.
func exportData(t *testing.T, dir string) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-C", dir, "-export", "-deps", "-json=ImportPath,Export", ".").Output()
	require.NoError(t, err)
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		require.NoError(t, dec.Decode(&p))
		exports[p.ImportPath] = p.Export
	}
	return exports
}

// parsePackage parses the non-test Go files of dir, and extra (file name → source) besides.
func parsePackage(t *testing.T, fset *gotoken.FileSet, dir string, extra map[string]string) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	for name, src := range extra {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), src, parser.SkipObjectResolution)
		require.NoError(t, err)
		files = append(files, f)
	}
	return files
}

// foreignFieldUses type-checks the package in dir (with extra files) and lists, as "file: field",
// every use of a field of typeName outside the file that declares it, but the readable ones.
func foreignFieldUses(t *testing.T, dir, typeName string, readable []string, extra map[string]string) []string {
	t.Helper()
	exports := exportData(t, dir)
	fset := gotoken.NewFileSet()
	files := parsePackage(t, fset, dir, extra)
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	pkg, err := (&types.Config{Importer: imp}).Check(filepath.Base(dir), fset, files, info)
	require.NoError(t, err)
	obj := pkg.Scope().Lookup(typeName)
	require.NotNil(t, obj, "%s declares %s", dir, typeName)
	st, ok := obj.Type().Underlying().(*types.Struct)
	require.True(t, ok, "%s is a struct", typeName)
	fields := map[*types.Var]bool{}
	for i := range st.NumFields() {
		fields[st.Field(i)] = true
	}
	home := fset.Position(obj.Pos()).Filename
	var uses []string
	for sel, s := range info.Selections {
		v, ok := s.Obj().(*types.Var)
		if !ok || !fields[v] || slices.Contains(readable, v.Name()) {
			continue
		}
		if file := fset.Position(sel.Pos()).Filename; file != home {
			uses = append(uses, filepath.Base(file)+": "+v.Name())
		}
	}
	slices.Sort(uses)
	return uses
}

func TestOnlyMonitorGoTouchesAMonitorsFieldsAndMutex(t *testing.T) {
	uses := foreignFieldUses(t, filepath.Join("..", "mcpserver", "monitor"), "Monitor", monitorReadable, nil)
	assert.Empty(t, uses, "Monitor's fields used outside monitor.go: give monitor a method instead")
}

// The check finds a field and the mutex touched from another file, and lets ID and Ref be read.
func TestTheMonitorFieldCheckCanFail(t *testing.T) {
	bad := "package monitor\n\nfunc peek(m *Monitor) (string, bool) {\n\tm.mu.Lock()\n\tdefer m.mu.Unlock()\n\treturn m.ID + m.Ref.String(), m.ended\n}\n"
	uses := foreignFieldUses(t, filepath.Join("..", "mcpserver", "monitor"), "Monitor", monitorReadable, map[string]string{"zz_peek.go": bad})
	assert.Equal(t, []string{"zz_peek.go: ended", "zz_peek.go: mu", "zz_peek.go: mu"}, uses)
}
