package tests

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docFiles are the README and every Markdown file under docs/, by their path from the root.
func docFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	read := func(rel string) {
		b, err := os.ReadFile(filepath.Join("..", rel))
		require.NoError(t, err)
		out[rel] = string(b)
	}
	read("README.md")
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

// stillOutside are references other documents still hold, each to go when its document is next
// rewritten (the decisions). An entry allows that text in that file only; one that no longer occurs allows nothing
// and is logged for removal.
var stillOutside = map[string][]string{
	"docs/decisions/0001-prior-verdicts-not-diffs.md": {"DESIGN §8", "§9", "reference/other-anchors.md", "DESIGN §8",
		"DESIGN §10.6"},
}

// The README and the docs point only at what the repository holds: no design brief, internal
// issue or shared folder a reader cannot open.
func TestTheDocsPointOnlyInsideTheRepository(t *testing.T) {
	for path, text := range docFiles(t) {
		allowed := stillOutside[path]
		for i, line := range strings.Split(text, "\n") {
			for _, loc := range outsideRef.FindAllStringIndex(line, -1) {
				if slices.ContainsFunc(allowed, func(a string) bool { return overlaps(line, a, loc) }) {
					continue
				}
				t.Errorf("%s:%d points outside the repository (%q): %s", path, i+1, line[loc[0]:loc[1]], line)
			}
		}
		for _, a := range allowed {
			if !strings.Contains(text, a) {
				t.Logf("%s no longer holds %q: take it out of stillOutside", path, a)
			}
		}
	}
}

// overlaps tells whether an occurrence of a in line overlaps the match at loc.
func overlaps(line, a string, loc []int) bool {
	for from := 0; ; {
		at := strings.Index(line[from:], a)
		if at < 0 {
			return false
		}
		at += from
		if at < loc[1] && loc[0] < at+len(a) {
			return true
		}
		from = at + 1
	}
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
	for _, s := range []string{"(DESIGN §13)", "see DESIGN.md", "its §8.3", "issue 13", "Issue #9", "`../shared/reference/`",
		"(reference/other-anchors.md)", "in shared/STYLE.md"} {
		assert.Regexp(t, outsideRef, s)
	}
	for _, s := range []string{"anthropics/claude-code #29629", "code.visualstudio.com/docs/copilot/reference/mcp-configuration",
		"[hosts.md](hosts.md)", "an issue labelled bug", "the issues query"} {
		assert.NotRegexp(t, outsideRef, s)
	}
}
