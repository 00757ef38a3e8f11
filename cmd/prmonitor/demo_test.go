package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoTellsTheWholeStory runs the demo as a user would and checks every beat of the story
// appears, in order: CI failure with the log fetched by the server, the fix the user chose, the
// refine, the per-thread replies with one pushback, the review request, the reviewer's reply
// explained by the host's model and resolved, and the merge on the user's choice.
func TestDemoTellsTheWholeStory(t *testing.T) {
	te := &testEnv{vars: map[string]string{}} // no token, no gh: the demo needs neither
	res := runCLI(t, te, "demo")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Empty(t, res.stderr)
	assert.Empty(t, te.commands())

	beats := []string{
		"calls pr_monitor_start(octo-org/poller#42)",
		"the server fetched a failing job's log",
		"execute investigate_ci_failure with the log tail of test",
		"user    chooses \"Apply the suggested fix\"",
		"execute apply_fix",
		"bob requests changes",
		"execute refine for bob's review with 3 threads",
		"the host's model, asked by the server: the comment's concern is testing",
		"the server posted a reply (with its hidden marker): \"Done in the last push.\"",
		"the server resolved a review thread",
		"pushes back on the Ticker comment",
		"the server asked bob to review again",
		"bob replies on thread 1",
		"the host's model, asked by the server",
		"user    chooses \"Resolve the thread (the reviewer's reply settles it)\"",
		"bob approves",
		"is ready: approved by 1 reviewer",
		"user    chooses \"Merge the pull request\"",
		"the server merged the pull request (the user chose to)",
		"server  merged: octo-org/poller#42 merged as",
		"1 merge, chosen by the user; nothing closed, nothing deleted.",
	}
	rest := res.stdout
	for _, b := range beats {
		at := strings.Index(rest, b)
		require.GreaterOrEqual(t, at, 0, "missing or out of order: %q\n--- output ---\n%s", b, res.stdout)
		rest = rest[at+len(b):]
	}
	assert.NotContains(t, res.stdout, "prmonitor-demo-token", "the token is never printed")
	for _, line := range strings.Split(res.stdout, "\n") {
		assert.NotRegexp(t, `[{\[]\s*"|"\s*:\s*(null|"|\{|\[)`, line, "a newcomer reads words, not a model's raw JSON")
	}
	assert.Equal(t, 1, strings.Count(res.stdout, "merged the pull request"), "exactly one merge")
}

// The story agrees with itself: the threads the server resolved after its replies are, at the
// merge question, resolved threads the reviewer approved after, not threads resolved by the
// approval; and every count reads in the singular when it is one.
func TestTheDemoStoryAgreesWithItself(t *testing.T) {
	res := runCLI(t, &testEnv{vars: map[string]string{}}, "demo")
	require.Equal(t, exitOK, res.code, res.stderr)
	resolvedByServer := strings.Count(res.stdout, "github  the server resolved a review thread")
	require.Equal(t, 3, resolvedByServer, "two threads after the replies, one on the user's choice:\n%s", res.stdout)
	_, ready, ok := strings.Cut(res.stdout, "is ready: ")
	require.True(t, ok)
	ready, _, _ = strings.Cut(ready, "choices:")
	assert.Contains(t, ready, "The reviewer approved after our reply on 2 resolved threads")
	assert.Contains(t, ready, "resolved, approved after our reply: bob on poller_test.go:8 and bob on poller.go:14")
	for _, claim := range []string{"count as resolved", "counts as resolved", "resolved by approval", "as the reviewer approved"} {
		assert.NotContains(t, res.stdout, claim, "the server resolved these threads itself, before the approval")
	}
	assert.NotRegexp(t, `\b1 [a-z]+s\b`, res.stdout, "one of a thing is singular")
}

func TestDemoTakesNoArguments(t *testing.T) {
	res := runCLI(t, &testEnv{}, "demo", "extra")
	assert.Equal(t, exitUsage, res.code)
	assert.Contains(t, res.stderr, "takes no arguments")
}

// The demo ends on commands the user can run from where they are: after `go run`, installing from
// the clone comes first; an installed binary is named as the shell finds it, or by its path.
func TestTheDemoEndsOnACommandTheUserCanRun(t *testing.T) {
	tests := []struct {
		name, exe, path string
		want            []string
	}{
		{"go run", "/tmp/go-build1234/b001/exe/prmonitor", "/usr/bin", []string{"`go install ./cmd/prmonitor`", "$(go env GOPATH)/bin", "then `prmonitor setup claude-code`"}},
		{"installed on the PATH", "/home/ana/go/bin/prmonitor", "/usr/bin:/home/ana/go/bin", []string{"Next: `prmonitor setup claude-code`", "`prmonitor check OWNER/REPO#N`"}},
		{"installed elsewhere", "/home/ana/go/bin/prmonitor", "/usr/bin", []string{"Next: `/home/ana/go/bin/prmonitor setup claude-code`"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := env{Getenv: func(k string) string { return map[string]string{"PATH": tt.path}[k] },
				Executable: func() (string, error) { return tt.exe, nil }}
			text := strings.Join(nextSteps(e), "\n")
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
		})
	}
	res := runCLI(t, &testEnv{}, "demo")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "Next: install it from this clone: `go install ./cmd/prmonitor`", "a test binary is unknown to the demo's env: install first")
}
