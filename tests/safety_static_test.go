package tests

// The static half of the safety invariants (docs/architecture.md#safety-invariants):
//
//  1. no code path closes a pull request or deletes a branch;
//  2. a merge happens only through the handler of the user's explicit merge choice: the state
//     machine's ready flow asks for it, and mcpserver/effects/merge.go alone sends it.
//
// Every non-test .go file of the module is tokenised (go/scanner: comments never count, string
// literals, struct tags and identifiers do) and checked against the rules below. The simulated
// GitHub (prstatus/githubfake) is exempt: it must implement the very endpoints prmonitor may not
// call, and refuses them at run time.

import (
	"fmt"
	"go/scanner"
	gotoken "go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Rules, named in findings. A merge includes the merges GitHub does later on the user's word:
// auto-merge (enablePullRequestAutoMerge, and turning it off) and a merge queue entry
// (enqueuePullRequest); they are held to the merge's rule.
const (
	ruleClose       = "closes a pull request"
	ruleDelete      = "deletes a branch"
	ruleMerge       = "merges outside " + mergeExecutor
	ruleServerMerge = "names a merging action outside the ready flow and " + mergeExecutor
)

// exempt directories, relative to the module root.
var exemptDirs = []string{"prstatus/githubfake"}

// mergeExecutor is the one place a merge is sent from: the merge of package effects (mcpserver/effects),
// which re-checks the pull request against what the user was shown first.
const mergeExecutor = "mcpserver/effects/merge.go"

// mergeAllowed: the GitHub client's Merge method, and the one executor that calls it.
func mergeAllowed(path string) bool {
	return strings.HasPrefix(path, "prstatus/ghclient/") || path == mergeExecutor
}

// serverMergeAllowed: where the state machine's merging actions (a merge, a merge-queue entry,
// auto-merge turned on) are declared and emitted (the user's explicit choice in the ready flow),
// and the executor that performs them.
func serverMergeAllowed(path string) bool {
	switch path {
	case "statemachine/types.go", "statemachine/ready.go", mergeExecutor:
		return true
	}
	return false
}

// mergingActions are the state machine's actions that merge (now, or by GitHub later).
var mergingActions = []string{"ServerMerge", "ServerEnqueue", "ServerEnableAutoMerge"}

var (
	// stateClosedText is a state set to closed inside one string literal: a JSON body
	// {"state":"closed"}, a GraphQL argument state: CLOSED.
	stateClosedText = regexp.MustCompile(`(?i)\bstate["']?\s*[:=]\s*["']?closed\b`)
	// closedIdent is a closed state constant of a GitHub client library (githubv4).
	closedIdent = regexp.MustCompile(`^(PullRequestUpdateState|PullRequestState|IssueState|StateReason)Closed$`)
)

// finding is one hit of a rule. Allowed hits are where the rule permits them (the merge executor).
type finding struct {
	Path    string
	Line    int
	Rule    string
	What    string
	Allowed bool
}

func (f finding) String() string {
	return fmt.Sprintf("%s:%d: %s (%s)", f.Path, f.Line, f.Rule, f.What)
}

// tok is one token of a file.
type tok struct {
	line int
	tok  gotoken.Token
	text string // an identifier's name, a string literal's value, an operator's spelling
}

func tokenize(src []byte) []tok {
	fset := gotoken.NewFileSet()
	file := fset.AddFile("src.go", -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(gotoken.Position, string) {}, 0) // comments are skipped
	var out []tok
	for {
		pos, t, lit := s.Scan()
		if t == gotoken.EOF {
			return out
		}
		text := lit
		switch t {
		case gotoken.STRING:
			if v, err := strconv.Unquote(lit); err == nil {
				text = v
			}
		case gotoken.IDENT:
		default:
			if lit == "" {
				text = t.String()
			}
		}
		out = append(out, tok{line: file.Line(pos), tok: t, text: text})
	}
}

// scanSource checks one file; path is relative to the module root, with slashes.
func scanSource(path string, src []byte) []finding {
	toks := tokenize(src)
	var out []finding
	hit := func(line int, rule, what string) {
		allowed := (rule == ruleMerge && mergeAllowed(path)) || (rule == ruleServerMerge && serverMergeAllowed(path))
		out = append(out, finding{Path: path, Line: line, Rule: rule, What: what, Allowed: allowed})
	}
	is := func(i int, t gotoken.Token, text string) bool {
		return i >= 0 && i < len(toks) && toks[i].tok == t && (text == "" || toks[i].text == text)
	}
	var refsLine, pullsLine int
	hasDelete, hasPatch := false, false
	for i, t := range toks {
		lower := strings.ToLower(t.text)
		if t.tok == gotoken.IDENT || t.tok == gotoken.STRING {
			switch {
			case strings.Contains(lower, "closepullrequest"):
				hit(t.line, ruleClose, "closePullRequest")
			case strings.Contains(lower, "deleteref"):
				hit(t.line, ruleDelete, "deleteRef")
			case strings.Contains(lower, "updaterefs"):
				hit(t.line, ruleDelete, "updateRefs can delete refs")
			case strings.Contains(lower, "delete_branch_on_merge") || strings.Contains(lower, "deletebranchonmerge"):
				hit(t.line, ruleDelete, "delete_branch_on_merge")
			case strings.Contains(lower, "mergepullrequest"):
				hit(t.line, ruleMerge, "mergePullRequest")
			case strings.Contains(lower, "enablepullrequestautomerge"):
				hit(t.line, ruleMerge, "enablePullRequestAutoMerge")
			case strings.Contains(lower, "disablepullrequestautomerge"):
				hit(t.line, ruleMerge, "disablePullRequestAutoMerge")
			case strings.Contains(lower, "enqueuepullrequest"):
				hit(t.line, ruleMerge, "enqueuePullRequest")
			}
		}
		switch t.tok {
		case gotoken.STRING:
			if stateClosedText.MatchString(t.text) {
				hit(t.line, ruleClose, fmt.Sprintf("state closed in %q", text.ClipRunes(t.text, 60)))
			}
			if strings.Contains(t.text, "/merge") {
				hit(t.line, ruleMerge, fmt.Sprintf("REST merge path %q", text.ClipRunes(t.text, 60)))
			}
			if strings.Contains(t.text, "git/refs") && refsLine == 0 {
				refsLine = t.line
			}
			if (strings.Contains(t.text, "/pulls") || strings.Contains(t.text, "/issues")) && pullsLine == 0 {
				pullsLine = t.line
			}
			hasDelete = hasDelete || t.text == "DELETE"
			hasPatch = hasPatch || t.text == "PATCH"
		case gotoken.IDENT:
			hasDelete = hasDelete || t.text == "MethodDelete"
			hasPatch = hasPatch || t.text == "MethodPatch"
			if slices.Contains(mergingActions, t.text) {
				hit(t.line, ruleServerMerge, t.text)
			}
			if (t.text == "PullRequests" || t.text == "Issues") && is(i+1, gotoken.PERIOD, "") && is(i+2, gotoken.IDENT, "Edit") && is(i+3, gotoken.LPAREN, "") {
				hit(t.line, ruleClose, t.text+".Edit can set state closed")
			}
		case gotoken.PERIOD:
			for _, m := range []string{"Merge", "EnableAutoMerge", "DisableAutoMerge", "Enqueue"} {
				if is(i+1, gotoken.IDENT, m) && is(i+2, gotoken.LPAREN, "") {
					hit(t.line, ruleMerge, "."+m+"( call")
				}
			}
		}
		if strings.EqualFold(t.text, "state") && (t.tok == gotoken.IDENT || t.tok == gotoken.STRING) &&
			(is(i+1, gotoken.COLON, "") || is(i+1, gotoken.ASSIGN, "") || is(i+1, gotoken.DEFINE, "")) {
			if what, ok := closedValue(toks[i+2:]); ok {
				hit(t.line, ruleClose, "state set to "+what)
			}
		}
	}
	if hasDelete && refsLine > 0 {
		hit(refsLine, ruleDelete, "DELETE on git/refs")
	}
	if hasPatch && pullsLine > 0 {
		hit(pullsLine, ruleClose, "PATCH of a pull request or issue (it can close it)")
	}
	return out
}

// closedValue looks at the value assigned to a state, up to the end of the expression.
func closedValue(toks []tok) (string, bool) {
	for i, t := range toks {
		if i == 6 || t.tok == gotoken.COMMA || t.tok == gotoken.SEMICOLON || t.tok == gotoken.RBRACE {
			return "", false
		}
		switch {
		case t.tok == gotoken.STRING && strings.EqualFold(t.text, "closed"):
			return strconv.Quote(t.text), true
		case t.tok == gotoken.IDENT && closedIdent.MatchString(t.text):
			return t.text, true
		}
	}
	return "", false
}

// moduleRoot finds the directory holding go.mod, from the test's directory up.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
}

// scanModule checks every non-test .go file of the module outside the exempt directories.
func scanModule(t *testing.T) (findings []finding, files int) {
	t.Helper()
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "vendor" || name == "node_modules") {
				return filepath.SkipDir
			}
			for _, ex := range exemptDirs {
				if rel == ex {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		findings = append(findings, scanSource(rel, src)...)
		return nil
	})
	require.NoError(t, err)
	return findings, files
}

func TestNoCodeClosesPullRequestsDeletesBranchesOrMergesOutsideTheExecutor(t *testing.T) {
	findings, files := scanModule(t)
	require.Greater(t, files, 20, "the scan must see the module's files")
	allowedMerge, executorMerge := 0, 0
	for _, f := range findings {
		switch {
		case !f.Allowed:
			t.Errorf("%s", f)
		case f.Rule == ruleMerge && strings.HasPrefix(f.Path, "prstatus/ghclient/"):
			allowedMerge++
		case f.Rule == ruleMerge && f.Path == mergeExecutor:
			executorMerge++
		}
	}
	// The scan is alive: it sees the legitimate merge requests, in the GitHub client, and the one
	// call of each, in the merge executor: merge, enqueue, auto-merge on and off.
	assert.Positive(t, allowedMerge, "the client's merge path should have been seen (and allowed)")
	assert.Equal(t, 4, executorMerge, "%s sends the one merge, queue entry and auto-merge (on and off)", mergeExecutor)
}

// The scanner flags what it must and nothing it must not, on snippets.
func TestSafetyScannerSelfTest(t *testing.T) {
	flagged := []struct {
		name, path, src, rule string
	}{
		{"GraphQL close in a struct tag", "mcpserver/x.go", "type m struct { C struct{} `graphql:\"closePullRequest(input: $input)\"` }", ruleClose},
		{"githubv4 close input", "mcpserver/x.go", "var in githubv4.ClosePullRequestInput", ruleClose},
		{"GraphQL update to CLOSED", "mcpserver/x.go", "const q = `mutation { updatePullRequest(input: {pullRequestId: $id, state: CLOSED}) { clientMutationId } }`", ruleClose},
		{"githubv4 closed state constant", "cmd/x.go", "var in = githubv4.UpdatePullRequestInput{State: &githubv4.PullRequestUpdateStateClosed}", ruleClose},
		{"REST body with state closed", "mcpserver/x.go", `var body = map[string]any{"state": "closed"}`, ruleClose},
		{"REST body as JSON text", "mcpserver/x.go", `var body = []byte("{\"state\":\"closed\"}")`, ruleClose},
		{"go-github edit to closed", "cmd/x.go", `func f() { _, _, _ = gh.PullRequests.Edit(ctx, o, r, n, &github.PullRequest{State: github.Ptr("closed")}) }`, ruleClose},
		{"go-github issue edit", "cmd/x.go", `func f() { gh.Issues.Edit(ctx, o, r, n, req) }`, ruleClose},
		{"PATCH of a pull request", "mcpserver/x.go", `func f() { http.NewRequest(http.MethodPatch, base+"/repos/o/r/pulls/7", body) }`, ruleClose},
		{"GraphQL deleteRef", "prstatus/ghclient/x.go", "type m struct { D struct{} `graphql:\"deleteRef(input: $input)\"` }", ruleDelete},
		{"go-github DeleteRef", "cmd/x.go", `func f() { gh.Git.DeleteRef(ctx, o, r, "heads/feature") }`, ruleDelete},
		{"GraphQL updateRefs", "mcpserver/x.go", "const q = `mutation { updateRefs(input: $in) { clientMutationId } }`", ruleDelete},
		{"REST DELETE of a ref", "mcpserver/x.go", `func f() { http.NewRequest("DELETE", base+"/repos/o/r/git/refs/heads/x", nil) }`, ruleDelete},
		{"delete branch on merge", "mcpserver/x.go", `var settings = map[string]any{"delete_branch_on_merge": true}`, ruleDelete},
		{"REST merge path elsewhere", "mcpserver/effects/work.go", `func f() { c.put("/repos/o/r/pulls/7/merge") }`, ruleMerge},
		{"REST merge path in the CLI", "cmd/prmonitor/x.go", `func f() bool { return strings.HasSuffix(p, "/merge") }`, ruleMerge},
		{"a .Merge( call elsewhere in effects", "mcpserver/effects/work.go", `func f() { gh.Merge(ctx, ref, req) }`, ruleMerge},
		{"GraphQL merge mutation", "prstatus/x.go", "type m struct { M struct{} `graphql:\"mergePullRequest(input: $input)\"` }", ruleMerge},
		{"auto-merge", "mcpserver/x.go", "const q = `mutation { enablePullRequestAutoMerge(input: $in) { clientMutationId } }`", ruleMerge},
		{"auto-merge turned off", "mcpserver/x.go", "var in githubv4.DisablePullRequestAutoMergeInput", ruleMerge},
		{"merge queue entry", "statemachine/x.go", "type m struct { E struct{} `graphql:\"enqueuePullRequest(input: $input)\"` }", ruleMerge},
		{"the client's auto-merge elsewhere", "mcpserver/effects/work.go", `func f() { gh.EnableAutoMerge(ctx, ref, req) }`, ruleMerge},
		{"the client's auto-merge turned off elsewhere", "mcpserver/drive.go", `func f() { gh.DisableAutoMerge(ctx, ref) }`, ruleMerge},
		{"the client's merge queue elsewhere", "mcpserver/effects/work.go", `func f() { gh.Enqueue(ctx, ref, head) }`, ruleMerge},
		{"a .Merge( call in the MCP server", "mcpserver/drive.go", `func f() { gh.Merge(ctx, ref, req) }`, ruleMerge},
		{"ServerMerge elsewhere", "mcpserver/effects/work.go", `func f(k statemachine.ServerActionKind) bool { return k == statemachine.ServerMerge }`, ruleServerMerge},
		{"ServerMerge in another flow", "statemachine/ci.go", `func f() ServerRequest { return ServerRequest{Kind: ServerMerge} }`, ruleServerMerge},
		{"a queue entry in another flow", "statemachine/ci.go", `func f() ServerRequest { return ServerRequest{Kind: ServerEnqueue} }`, ruleServerMerge},
		{"auto-merge in the watching code", "statemachine/automerge.go", `func f() ServerRequest { return ServerRequest{Kind: ServerEnableAutoMerge} }`, ruleServerMerge},
		{"go-github merge in the executor's package", "mcpserver/effects/merge_helper.go", `func f() { gh.PullRequests.Merge(ctx, o, r, n, msg, opts) }`, ruleMerge},
	}
	for _, tt := range flagged {
		t.Run("flags "+tt.name, func(t *testing.T) {
			var rules []string
			for _, f := range scanSource(tt.path, []byte("package x\n"+tt.src+"\n")) {
				if !f.Allowed {
					rules = append(rules, f.Rule)
				}
			}
			assert.Contains(t, rules, tt.rule)
		})
	}

	clean := []struct{ name, path, src string }{
		{"comments say what must never happen", "mcpserver/x.go", "// Never closePullRequest, never deleteRef, never PUT .../merge, never ServerMerge.\nvar x = 1"},
		{"closing a body", "mcpserver/x.go", `func f() { defer resp.Body.Close() }`},
		{"reading a closed state", "mcpserver/x.go", `func f() bool { return s.State == prstatus.StateClosed }`},
		{"the state constant itself", "prstatus/snapshot.go", `const StateClosed PRState = "CLOSED"`},
		{"a state field set to open", "mcpserver/x.go", `var s = Snapshot{State: "OPEN", Closed: false}`},
		{"an interface's Merge method", "mcpserver/effects/github.go", `type GitHub interface { Merge(ctx context.Context) error }`},
		{"merged and mergeable fields", "mcpserver/x.go", `var q = "merged mergeable mergeStateStatus"`},
		{"the client's merge", "prstatus/ghclient/merge.go", `func f() { c.restDo(ctx, "PUT", pullPath(ref)+"/merge", in) }`},
		{"the executor's merge", mergeExecutor, `func f() { res, err := gh.Merge(ctx, ref, req); _ = statemachine.ServerMerge }`},
		{"the executor's auto-merge and queue", mergeExecutor, `func f() { gh.EnableAutoMerge(ctx, ref, req); gh.DisableAutoMerge(ctx, ref); gh.Enqueue(ctx, ref, head) }`},
		{"the client's auto-merge", "prstatus/ghclient/automerge.go", "type m struct { E struct{} `graphql:\"enablePullRequestAutoMerge(input: $input)\"` }"},
		{"the ready flow's merge action", "statemachine/ready.go", `func f() ServerRequest { return ServerRequest{Kind: ServerMerge} }`},
		{"the action's declaration", "statemachine/types.go", `const ServerMerge ServerActionKind = "merge"`},
		{"a DELETE of something else", "mcpserver/x.go", `func f() { http.NewRequest("DELETE", base+"/repos/o/r/pulls/7/requested_reviewers", nil) }`},
		{"a recorded request's merge, asked of the fake", "cmd/prmonitor/demo.go", `func f(r githubfake.Request) bool { return r.IsMerge() }`},
	}
	for _, tt := range clean {
		t.Run("passes "+tt.name, func(t *testing.T) {
			for _, f := range scanSource(tt.path, []byte("package x\n"+tt.src+"\n")) {
				assert.True(t, f.Allowed, "unexpected finding: %s", f)
			}
		})
	}
}
