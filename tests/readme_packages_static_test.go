package tests

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// firstCells are the first cells of the Markdown table in doc whose heading row is heading, one a
// row (the separator row left out); ok is false when doc has no such table.
func firstCells(doc, heading string) (cells []string, ok bool) {
	_, table, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		return nil, false
	}
	for line := range strings.Lines(table) {
		if !strings.HasPrefix(line, "|") {
			break
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "|"), "|")
		if first = strings.TrimSpace(first); !strings.HasPrefix(first, "---") {
			cells = append(cells, first)
		}
	}
	return cells, true
}

// readmePackages are the packages the README's package table names (its first table whose
// heading is "| package | what it is |"), relative to the module; "x/..." is x and below it.
func readmePackages(t *testing.T, readme string) []string {
	t.Helper()
	cells, ok := firstCells(readme, "| package | what it is |")
	require.True(t, ok, "the README has a package table")
	code := regexp.MustCompile("`([^`]+)`")
	var pkgs []string
	for _, cell := range cells {
		for _, m := range code.FindAllStringSubmatch(cell, -1) {
			pkgs = append(pkgs, m[1])
		}
	}
	return pkgs
}

// unlisted are the packages of the module the README's table names nowhere, and the names in
// the table that are no package.
func unlisted(listed []string, pkgs []string) (missing, stale []string) {
	for _, p := range pkgs {
		if !slices.ContainsFunc(listed, func(l string) bool { return matches(p, l) }) {
			missing = append(missing, p)
		}
	}
	for _, l := range listed {
		if !slices.ContainsFunc(pkgs, func(p string) bool { return matches(p, l) }) {
			stale = append(stale, l)
		}
	}
	return missing, stale
}

// The README's package table is true: every package of the module is in it (a row of its own,
// or under a "x/..." row), and every package it names exists.
func TestEveryPackageIsInTheReadmeTable(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	require.NoError(t, err)
	listed := readmePackages(t, string(raw))
	require.Greater(t, len(listed), 10, "the table is read")
	var pkgs []string
	for p := range directImports(t) {
		pkgs = append(pkgs, p)
	}
	missing, stale := unlisted(listed, pkgs)
	assert.Empty(t, missing, "packages the README's table does not list")
	assert.Empty(t, stale, "names in the README's table that are no package")
}

// The README check fails on a table that leaves a package out or names one that is gone.
func TestTheReadmeTableCheckCanFail(t *testing.T) {
	table := "intro\n| package | what it is |\n|---|---|\n| `a` | one |\n| `b/...`, `gone` | more |\n\nafter `c`\n"
	listed := readmePackages(t, table)
	assert.Equal(t, []string{"a", "b/...", "gone"}, listed)
	missing, stale := unlisted(listed, []string{"a", "b", "b/x", "c"})
	assert.Equal(t, []string{"c"}, missing)
	assert.Equal(t, []string{"gone"}, stale)
}
