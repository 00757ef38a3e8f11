// Command filegraph measures how a Go package's files refer to each other, for a reader: the
// references between its files (to a package-level name, a method or a struct field declared in
// another file, counted once per pair of files) that run back up the layering, against the file
// order a greedy feedback-arc-set heuristic (Eades, Lin and Smyth) finds; and, along the static
// call tree of one function (depth first, in source order, each function once, to -depth), how
// many files a reader visits and how often they return to a file they had left. From tools/:
//
//	go run ./filegraph -dir ../mcpserver -depth 3 -skip '(*scheduler).next,(*scheduler).answer,(*Server).taskContext'
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	dir := flag.String("dir", ".", "the package's directory")
	entry := flag.String("entry", "(*Server).handleNextStep", "the function whose call tree is followed")
	verbose := flag.Bool("v", false, "print the back edges and the trace")
	depth := flag.Int("depth", 3, "how deep the call tree is followed (the entry is 0)")
	skipList := flag.String("skip", "", "comma-separated functions not followed (another path than the one measured)")
	flag.Parse()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo, Dir: *dir}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		fmt.Fprintln(os.Stderr, "load:", err, pkgs[0].Errors)
		os.Exit(1)
	}
	p := pkgs[0]
	name := func(obj types.Object) string { return filepath.Base(p.Fset.Position(obj.Pos()).Filename) }
	// edges: file -> file it refers to
	edges := map[string]map[string]bool{}
	files := map[string]bool{}
	funcs := map[*types.Func]*ast.FuncDecl{}
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		files[from] = true
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if obj, ok := p.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					funcs[obj] = fd
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
				return true
			}
			// package-level objects, methods and struct fields
			switch o := obj.(type) {
			case *types.Var:
				if !o.IsField() && o.Parent() != p.Types.Scope() {
					return true
				}
			case *types.Func, *types.TypeName, *types.Const:
				if o.Parent() != nil && o.Parent() != p.Types.Scope() {
					return true
				}
			default:
				return true
			}
			to := name(obj)
			if to != from {
				if edges[from] == nil {
					edges[from] = map[string]bool{}
				}
				edges[from][to] = true
			}
			return true
		})
	}
	order := layering(files, edges)
	rank := map[string]int{}
	for i, f := range order {
		rank[f] = i
	}
	back, total := 0, 0
	var backs []string
	for from, tos := range edges {
		for to := range tos {
			total++
			// a file refers down to the files below it (higher rank); a reference to a file above
			// it runs back up.
			if rank[to] < rank[from] {
				back++
				backs = append(backs, from+" -> "+to)
			}
		}
	}
	sort.Strings(backs)
	fmt.Printf("files %d, references between files %d, running back up %d\n", len(files), total, back)
	if *verbose {
		fmt.Println("order:", order)
		for _, b := range backs {
			fmt.Println("  up:", b)
		}
	}
	// the call tree of entry, depth first in source order, each function once
	var start *types.Func
	for fn := range funcs {
		if fullName(fn) == *entry {
			start = fn
		}
	}
	if start == nil {
		fmt.Fprintln(os.Stderr, "no function", *entry)
		os.Exit(1)
	}
	seen := map[*types.Func]bool{}
	for fn := range funcs {
		for _, n := range strings.Split(*skipList, ",") {
			if n != "" && fullName(fn) == n {
				seen[fn] = true
			}
		}
	}
	var trail []string
	var walk func(fn *types.Func, level int)
	walk = func(fn *types.Func, level int) {
		seen[fn] = true
		file := name(fn)
		trail = append(trail, file)
		ast.Inspect(funcs[fn].Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var id *ast.Ident
			switch f := call.Fun.(type) {
			case *ast.Ident:
				id = f
			case *ast.SelectorExpr:
				id = f.Sel
			case *ast.IndexExpr:
				if i, ok := f.X.(*ast.Ident); ok {
					id = i
				}
			}
			if id == nil {
				return true
			}
			callee, ok := p.TypesInfo.Uses[id].(*types.Func)
			if !ok || funcs[callee] == nil || seen[callee] || level >= *depth {
				return true
			}
			walk(callee, level+1)
			trail = append(trail, file) // back in the caller
			return true
		})
	}
	walk(start, 0)
	// collapse repeats, count returns to a file already left
	var path []string
	for _, f := range trail {
		if len(path) == 0 || path[len(path)-1] != f {
			path = append(path, f)
		}
	}
	left := map[string]bool{}
	visited := map[string]bool{}
	returns := 0
	for i, f := range path {
		if left[f] {
			returns++
		}
		visited[f] = true
		if i > 0 {
			left[path[i-1]] = true
		}
	}
	fmt.Printf("%s: %d functions, %d files visited, %d returns to a file already left\n", *entry, len(seen), len(visited), returns)
	if *verbose {
		fmt.Println("path:", path)
	}
}

func fullName(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if r := sig.Recv(); r != nil {
		t := r.Type()
		ptr := ""
		if pt, ok := t.(*types.Pointer); ok {
			t, ptr = pt.Elem(), "*"
		}
		if n, ok := t.(*types.Named); ok {
			return fmt.Sprintf("(%s%s).%s", ptr, n.Obj().Name(), fn.Name())
		}
	}
	return fn.Name()
}

// layering orders the files so that few references run against the order (Eades, Lin and
// Smyth's greedy heuristic for a small feedback arc set): files that only refer to others' come
// first, files only referred to come last.
func layering(files map[string]bool, edges map[string]map[string]bool) []string {
	in := map[string]map[string]bool{}
	out := map[string]map[string]bool{}
	left := map[string]bool{}
	for f := range files {
		left[f] = true
		in[f], out[f] = map[string]bool{}, map[string]bool{}
	}
	for a, bs := range edges {
		for b := range bs {
			out[a][b] = true
			in[b][a] = true
		}
	}
	var head, tail []string
	remove := func(f string) {
		delete(left, f)
		for b := range out[f] {
			delete(in[b], f)
		}
		for a := range in[f] {
			delete(out[a], f)
		}
	}
	sorted := func() []string {
		var l []string
		for f := range left {
			l = append(l, f)
		}
		sort.Strings(l)
		return l
	}
	for len(left) > 0 {
		changed := true
		for changed {
			changed = false
			for _, f := range sorted() {
				if len(out[f]) == 0 { // refers to nothing left: the bottom
					tail = append([]string{f}, tail...)
					remove(f)
					changed = true
				}
			}
			for _, f := range sorted() {
				if len(in[f]) == 0 { // nothing left refers to it: the top
					head = append(head, f)
					remove(f)
					changed = true
				}
			}
		}
		if len(left) == 0 {
			break
		}
		best, score := "", -1<<30
		for _, f := range sorted() {
			if d := len(out[f]) - len(in[f]); d > score {
				best, score = f, d
			}
		}
		head = append(head, best)
		remove(best)
	}
	return append(head, tail...)
}
