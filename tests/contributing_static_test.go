package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codeSpan is one `code span` of a Markdown text.
var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// repoPath is a code span that names a file or folder of the repository ("statemachine/nodes.go").
var repoPath = regexp.MustCompile(`^\.?[a-z]+(/[\w.-]+)+/?$`)

// goName is a code span that names a Go identifier ("nodeOrder", "reachers()", "merge_conflict").
var goName = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(\(\))?$`)

// staleNames are the code spans of text that name a repository path that does not exist, or an
// identifier no Go file holds: what a rename left behind (the tests a document names are held by
// TestEveryTestTheDocsNameExists, which reads CONTRIBUTING.md too).
func staleNames(text string, exists func(string) bool, source string) []string {
	var stale []string
	for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
		span := m[1]
		switch {
		case repoPath.MatchString(span):
			if !exists(span) {
				stale = append(stale, span)
			}
		case goName.MatchString(span):
			name := goName.FindStringSubmatch(span)[1]
			if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(source) {
				stale = append(stale, span)
			}
		}
	}
	return stale
}

// CONTRIBUTING.md says how to work on the code: the inner loop, the tiers, where a new package is
// placed and the recipe for a new kind of question. Every path and identifier it names exists,
// so a rename that leaves it behind fails here.
func TestContributingNamesWhatExists(t *testing.T) {
	b, err := os.ReadFile("../CONTRIBUTING.md")
	require.NoError(t, err)
	text := string(b)
	for _, want := range []string{"go test -short ./...", "go test ./...", "go run -C tools ./teamtier", ".ci/run",
		"docs/architecture.md", "| package | what it is |", "go generate ./statemachine", "PositionVersion", "docs/state-machine.md"} {
		assert.Contains(t, text, want)
	}
	var source strings.Builder
	for _, f := range goFiles(t) {
		code, err := os.ReadFile(filepath.Join("..", f))
		require.NoError(t, err)
		source.Write(code)
	}
	exists := func(p string) bool { _, err := os.Stat(filepath.Join("..", p)); return err == nil }
	assert.Empty(t, staleNames(text, exists, source.String()), "CONTRIBUTING.md names these, which the repository does not hold")

	// The check can fail: a path and a name that are not there are reported (the name is put
	// together here, so that this file does not hold it).
	missing := "noSuch" + "Name"
	assert.Equal(t, []string{"statemachine/gone.go", missing + "()"},
		staleNames("`statemachine/gone.go` `"+missing+"()` `nodeOrder` `statemachine/nodes.go`", exists, source.String()))
}
