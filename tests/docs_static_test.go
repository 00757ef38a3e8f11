package tests

import (
	"fmt"
	"go/scanner"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docFiles are the README, CONTRIBUTING.md and every Markdown file under docs/, by their path from
// the root.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	read := func(rel string) {
		b, err := os.ReadFile(filepath.Join("..", rel))
		require.NoError(t, err)
		out[rel] = string(b)
	}
	read("README.md")
	read("CONTRIBUTING.md")
	require.NoError(t, filepath.WalkDir(filepath.Join("..", "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel("..", p)
			read(filepath.ToSlash(rel))
		}
		return err
	}))
	return out
}

// outsideRef matches what points outside the repository, where a reader of it cannot follow: the
// design brief and its sections, the internal issue tracker, the shared reference folder.
var outsideRef = regexp.MustCompile(`DESIGN|§|\.\./shared|\bshared/|(?:^|[\s(` + "`" + `])reference/[\w-]+\.md|\b[Ii]ssues? #?\d+`)

// The README and the docs point only at what the repository holds: no design brief, internal
// issue or shared folder a reader cannot open.
func TestTheDocsPointOnlyInsideTheRepository(t *testing.T) {
	for path, text := range docFiles(t) {
		for i, line := range strings.Split(text, "\n") {
			for _, loc := range outsideRef.FindAllStringIndex(line, -1) {
				t.Errorf("%s:%d points outside the repository (%q): %s", path, i+1, line[loc[0]:loc[1]], line)
			}
		}
	}
}

// designRef is a reference to the design brief's sections, which the repository does not hold.
var designRef = regexp.MustCompile(`DESIGN\s*§|DESIGN\.md|\.\./shared`)

// The code's comments cite the documents in the repository (docs/architecture.md, with a section's
// anchor, and the others), never the design brief's sections: every comment of every Go file is read (string
// literals, which tests use as data, are not comments).
func TestGoCommentsCiteOnlyDocsInTheRepository(t *testing.T) {
	files := goFiles(t)
	require.Greater(t, len(files), 300, "the module's Go files are found")
	for _, path := range files {
		for _, c := range goComments(t, path) {
			if m := designRef.FindString(c.text); m != "" {
				t.Errorf("%s:%d cites %q, outside the repository: %s", path, c.line, m, strings.TrimSpace(c.text))
			}
		}
	}
}

// Every reference to a section of a document (a document's path under docs/ and an anchor, in a
// Go comment or a document, or a link with an anchor between documents) names a heading that
// document has, as GitHub makes its anchors.
func TestEverySectionReferenceLeadsToAHeading(t *testing.T) {
	docs := docFiles(t)
	anchors := map[string][]string{}
	for path, text := range docs {
		anchors[path] = headingAnchors(text)
	}
	check := func(where, doc, anchor string) {
		t.Helper()
		have, ok := anchors[doc]
		if !ok {
			t.Errorf("%s refers to %s#%s: no such document", where, doc, anchor)
			return
		}
		if !slices.Contains(have, anchor) {
			t.Errorf("%s refers to %s#%s: no such heading (it has %v)", where, doc, anchor, have)
		}
	}
	n := 0
	for _, path := range goFiles(t) {
		for _, c := range goComments(t, path) {
			for _, m := range sectionRef.FindAllStringSubmatch(c.text, -1) {
				check(fmt.Sprintf("%s:%d", path, c.line), m[1], m[2])
				n++
			}
		}
	}
	link := regexp.MustCompile(`\]\(([^)#\s:]*\.md)#([^)\s]+)\)`)
	for path, text := range docs {
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			check(path, filepath.ToSlash(filepath.Join(filepath.Dir(path), m[1])), m[2])
			n++
		}
		for _, m := range sectionRef.FindAllStringSubmatch(text, -1) {
			check(path, m[1], m[2])
			n++
		}
	}
	assert.Greater(t, n, 20, "the references are found")
}

// sectionRef is a reference to a section of a document of the repository, as code comments write it.
var sectionRef = regexp.MustCompile(`\b(docs/[\w/.-]+\.md)#([\w-]+)`)

// headingAnchors lists the anchors GitHub gives the headings of a Markdown text: lower case,
// punctuation but hyphens and underscores dropped, spaces made hyphens; a repeated one gets -1, -2.
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	fence := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, k))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// goFiles lists the module's Go files, by their path from the root.
func goFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".." || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			rel, _ := filepath.Rel("..", p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	}))
	return out
}

// comment is one comment of a Go file, with the line it starts on.
type comment struct {
	line int
	text string
}

// goComments lists the comments of the Go file at path (from the root of the module, or absolute).
func goComments(t *testing.T, path string) []comment {
	t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join("..", filepath.FromSlash(path))
	}
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	fset := gotoken.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var sc scanner.Scanner
	sc.Init(file, src, nil, scanner.ScanComments)
	var out []comment
	for {
		pos, tok, lit := sc.Scan()
		if tok == gotoken.EOF {
			return out
		}
		if tok == gotoken.COMMENT {
			out = append(out, comment{line: fset.Position(pos).Line, text: lit})
		}
	}
}

// The comment and anchor checks find what they are meant to.
func TestTheCommentAndAnchorChecksCanFail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.go")
	// The citations are assembled, so that this file itself cites nothing outside the repository.
	design := "DESIGN " + "§"
	require.NoError(t, os.WriteFile(path, []byte("package x\n\n// See "+design+"4 and docs/architecture.md#layers.\nvar s = \""+design+"9\"\n"), 0o600))
	got := goComments(t, path)
	require.Len(t, got, 1, "the string literal is no comment")
	assert.Equal(t, 3, got[0].line)
	assert.Regexp(t, designRef, got[0].text)
	assert.Equal(t, [][]string{{"docs/architecture.md#layers", "docs/architecture.md", "layers"}}, sectionRef.FindAllStringSubmatch(got[0].text, -1))

	assert.Equal(t, []string{"the-decision-order", "one-next_step-call", "asking-the-user-and-the-hosts-model", "overview", "overview-1", "how-long-a-call-waits"},
		headingAnchors("# The decision order\n## One `next_step` call\n### Asking the user and the host's model\n"+
			"## Overview\n```\n# not a heading\n```\n## Overview\n## How long a call waits\n"))
}

// testName matches a test, fuzz target or benchmark named in prose; runFlag a -run pattern.
var (
	testName = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z]\w*`)
	runFlag  = regexp.MustCompile(`(?:^|\s)-run[ =]'?([\w|^$.*]+)'?`)
	// placeholder is a -run argument that stands for a name, or for none (^$: benchmarks only).
	placeholder = regexp.MustCompile(`^(?:[A-Z]+|\^\$)$`)
)

// Every test the README and the docs name exists, so `go test -run NAME` finds what they say
// holds a claim; a -run pattern matches at least one test.
func TestEveryTestTheDocsNameExists(t *testing.T) {
	var tests []string
	require.NoError(t, filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, err := os.ReadFile(p)
		for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`).FindAllStringSubmatch(string(b), -1) {
			tests = append(tests, m[1])
		}
		return err
	}))
	require.Greater(t, len(tests), 500, "the repository's tests are found")
	for path, text := range docFiles(t) {
		if path == "docs/state-machine.md" {
			continue // generated from the table, names no test
		}
		inRun := map[string]bool{}
		for _, m := range runFlag.FindAllStringSubmatch(text, -1) {
			for _, alt := range strings.Split(m[1], "|") {
				if placeholder.MatchString(alt) {
					continue
				}
				re, err := regexp.Compile(alt)
				if assert.NoError(t, err, "%s: -run %s", path, m[1]) {
					assert.True(t, slices.ContainsFunc(tests, re.MatchString), "%s: -run %q matches no test", path, alt)
				}
				inRun[strings.Trim(alt, "^$")] = true
			}
		}
		for _, name := range testName.FindAllString(text, -1) {
			if !inRun[name] && !slices.Contains(tests, name) {
				t.Errorf("%s names %s, a test that does not exist", path, name)
			}
		}
	}
}

// Every link from one document to another file of the repository leads somewhere.
func TestEveryLinkInTheDocsLeadsToAFile(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(?:#[^)]*)?\)`)
	for path, text := range docFiles(t) {
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			_, err := os.Stat(filepath.Join("..", filepath.Dir(path), target))
			assert.NoError(t, err, "%s links to %s", path, target)
		}
	}
}

// The check catches each kind of reference it is meant to, and lets public sources through.
func TestTheOutsideReferenceCheckCanFail(t *testing.T) {
	for _, s := range []string{"(DESIGN " + "§13)", "see DESIGN.md", "its §8.3", "issue 13", "Issue #9", "`../shared/reference/`",
		"(reference/other-anchors.md)", "in shared/STYLE.md"} {
		assert.Regexp(t, outsideRef, s)
	}
	for _, s := range []string{"anthropics/claude-code #29629", "code.visualstudio.com/docs/copilot/reference/mcp-configuration",
		"[hosts.md](hosts.md)", "an issue labelled bug", "the issues query"} {
		assert.NotRegexp(t, outsideRef, s)
	}
}
