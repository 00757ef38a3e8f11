package tests

// The static half of the repository dispatcher's safety invariants (issue 13): every non-test Go
// file of the dispatcher is tokenised (comments never count; identifiers, string literals and
// struct tags do) and checked. The run-time half is in prstatus/dispatch/runner's tests, against
// the fake; the templates' half (S8) in prstatus/dispatch.
//
//	S1  no merge call in the dispatcher's code
//	S4  no model or LLM API in the dispatcher
//	S9  no close call anywhere in it

import (
	"fmt"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dispatcherFiles are the dispatcher's source files, relative to the module root: its packages
// whole, and its files in shared packages.
func dispatcherFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"prstatus/dispatch", "prstatus/dispatch/runner"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		require.NoError(t, err)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
				out = append(out, dir+"/"+e.Name())
			}
		}
	}
	return append(out, "prstatus/ghclient/repo.go", "prstatus/ghclient/repo_query.go",
		"cmd/prmonitor/dispatch.go", "mcpserver/tool_dispatch.go", "mcpserver/contract/tool_dispatch.go")
}

// allowedImports are the only packages the dispatcher may import besides the standard library
// (S4: nothing that reaches a model).
var allowedImports = []string{
	"github.com/prmonitor/prmonitor/prstatus",
	"github.com/google/go-github/",
	"github.com/shurcooL/githubv4",
	"go.yaml.in/yaml/v3",
	"github.com/mark3labs/mcp-go/mcp",
	"github.com/mark3labs/mcp-go/server",
	"github.com/prmonitor/prmonitor/mcpserver/contract", // the tool's definition and the rendering of its result: no model
}

// allowedREST are the only go-github calls the dispatcher may make: labels and assignees.
var allowedREST = map[string]bool{
	"Issues.AddLabelsToIssue":    true,
	"Issues.RemoveLabelForIssue": true,
	"Issues.AddAssignees":        true,
}

var (
	mergeInString = regexp.MustCompile(`(?i)mergepullrequest|automerge|/merge\b|merge_method`)
	closeInString = regexp.MustCompile(`(?i)closepullrequest|\bstate["']?\s*[:=]\s*["']?closed\b|git/refs|deleteref`)
	modelInString = regexp.MustCompile(`(?i)openai|anthropic|/v1/chat|/v1/messages|completions|sampling/createmessage`)
)

// violations returns what one file breaks, one line each.
func violations(src []byte) []string {
	var out []string
	bad := func(line int, format string, args ...any) {
		out = append(out, strconv.Itoa(line)+": "+fmt.Sprintf(format, args...))
	}
	toks := tokenize(src)
	is := func(i int, t gotoken.Token, text string) bool {
		return i < len(toks) && toks[i].tok == t && (text == "" || toks[i].text == text)
	}
	for i, t := range toks {
		lower := strings.ToLower(t.text)
		switch t.tok {
		case gotoken.IDENT:
			switch {
			case t.text == "Merge" || mergeInString.MatchString(t.text) || strings.Contains(lower, "mergemethod"):
				bad(t.line, "S1: identifier %s", t.text)
			case strings.Contains(lower, "close") && !(t.text == "Close" && is(i+1, gotoken.LPAREN, "") && is(i+2, gotoken.RPAREN, "")):
				bad(t.line, "S9: identifier %s", t.text)
			case t.text == "Edit" || t.text == "MethodPatch" || t.text == "MethodDelete" || t.text == "Mutate" || t.text == "MutationType":
				bad(t.line, "S1/S9: %s (only labels and assignees may be written)", t.text)
			case strings.Contains(lower, "sampling") || strings.Contains(lower, "createmessage"):
				bad(t.line, "S4: identifier %s", t.text)
			}
			if t.text == "gh" && is(i+1, gotoken.PERIOD, "") && is(i+2, gotoken.IDENT, "") && is(i+3, gotoken.PERIOD, "") && is(i+4, gotoken.IDENT, "") {
				if call := toks[i+2].text + "." + toks[i+4].text; !allowedREST[call] {
					bad(t.line, "S1/S9: go-github call %s is not a label or assignee write", call)
				}
			}
		case gotoken.STRING:
			if strings.EqualFold(t.text, "closed") && i >= 2 && strings.EqualFold(toks[i-2].text, "state") {
				bad(t.line, "S9: state set to closed")
			}
			switch {
			case mergeInString.MatchString(t.text):
				bad(t.line, "S1: %q", t.text)
			case closeInString.MatchString(t.text):
				bad(t.line, "S9: %q", t.text)
			case modelInString.MatchString(t.text):
				bad(t.line, "S4: %q", t.text)
			case t.text == "PATCH" || t.text == "DELETE" || t.text == "PUT":
				bad(t.line, "S1/S9: HTTP %s", t.text)
			case strings.HasPrefix(strings.TrimSpace(t.text), "mutation"):
				bad(t.line, "S1/S9: a GraphQL mutation")
			}
		}
	}
	return out
}

// badImports returns the imports of a file that are not allowed (S4).
func badImports(t *testing.T, path string, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(gotoken.NewFileSet(), path, src, parser.ImportsOnly)
	require.NoError(t, err)
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		first, _, _ := strings.Cut(p, "/")
		if !strings.Contains(first, ".") {
			continue // the standard library
		}
		ok := false
		for _, a := range allowedImports {
			ok = ok || p == a || strings.HasPrefix(p, strings.TrimSuffix(a, "/")+"/") || (strings.HasSuffix(a, "/") && strings.HasPrefix(p, a))
		}
		if !ok {
			out = append(out, p)
		}
	}
	return out
}

func TestDispatcherNeverMergesClosesOrCallsAModel(t *testing.T) {
	root := moduleRoot(t)
	files := dispatcherFiles(t, root)
	require.Greater(t, len(files), 12, "the scan must see the dispatcher's files")
	restCalls := 0
	for _, rel := range files {
		src, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err, rel)
		for _, v := range violations(src) {
			t.Errorf("%s:%s", rel, v)
		}
		for _, p := range badImports(t, rel, src) {
			t.Errorf("%s: S4: imports %s", rel, p)
		}
		restCalls += strings.Count(string(src), "w.gh.Issues.")
	}
	assert.Equal(t, 3, restCalls, "the scan is alive: it sees the three label and assignee writes")
}

// The scan flags what it must and nothing it must not.
func TestDispatchSafetyScanSelfTest(t *testing.T) {
	flagged := map[string]string{
		"a merge call":               `func f() { c.Merge(ctx, ref, req) }`,
		"go-github merge":            `func f() { w.gh.PullRequests.Merge(ctx, o, r, n, "", nil) }`,
		"go-github edit":             `func f() { w.gh.Issues.Edit(ctx, o, r, n, req) }`,
		"a GraphQL merge":            "type m struct { M struct{} `graphql:\"mergePullRequest(input: $input)\"` }",
		"a REST merge path":          `var p = "/repos/o/r/pulls/7/merge"`,
		"a GraphQL close":            "type m struct { C struct{} `graphql:\"closePullRequest(input: $input)\"` }",
		"state closed":               `var b = map[string]any{"state": "closed"}`,
		"a close identifier":         `func f() { closePR(7) }`,
		"a GraphQL mutation":         "const q = `mutation { addLabelsToLabelable(input: $in) { clientMutationId } }`",
		"a mutate call":              `func f() { c.gql.Mutate(ctx, &m, in, nil) }`,
		"a PATCH":                    `func f() { http.NewRequest("PATCH", u, nil) }`,
		"a branch deletion":          `var p = "/repos/o/r/git/refs/heads/x"`,
		"sampling":                   `func f() { s.RequestSampling(ctx, req) }`,
		"a model API":                `var u = "https://api.openai.com/v1/chat/completions"`,
		"another go-github service":  `func f() { w.gh.Git.DeleteRef(ctx, o, r, "heads/x") }`,
		"an unlisted go-github call": `func f() { w.gh.Issues.Lock(ctx, o, r, n, nil) }`,
	}
	for name, src := range flagged {
		assert.NotEmpty(t, violations([]byte("package x\n"+src+"\n")), name)
	}
	clean := map[string]string{
		"mergeability":     `func f(p *PR) bool { return p.Mergeable == prstatus.MergeableConflict }`,
		"comments":         "// never merge, never close, never closePullRequest\nvar x = 1",
		"a body closed":    `func f() { defer resp.Body.Close() }`,
		"the label writes": `func f() { w.gh.Issues.AddLabelsToIssue(ctx, o, r, n, l); w.gh.Issues.RemoveLabelForIssue(ctx, o, r, n, l) }`,
		"a read":           "type q struct { M string `graphql:\"mergeable\"` }",
	}
	for name, src := range clean {
		assert.Empty(t, violations([]byte("package x\n"+src+"\n")), name)
	}
	assert.Equal(t, []string{"github.com/sashabaranov/go-openai"}, badImports(t, "x.go", []byte("package x\nimport (\n\t\"fmt\"\n\t\"github.com/sashabaranov/go-openai\"\n\t\"github.com/google/go-github/v92/github\"\n)\n")))
}
