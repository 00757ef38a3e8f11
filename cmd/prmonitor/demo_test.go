package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestDemo(t *testing.T) {
	// No token and no gh: the demo needs neither.
	te := &testEnv{vars: map[string]string{"GITHUB_API_URL": "https://api.github.com"}}
	res := runCLI(t, te, "demo")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Empty(t, res.stderr)
	assert.Empty(t, te.commands())

	ref := prstatus.PRRef{Owner: demoOwner, Repo: demoRepo, Number: demoNumber}
	sc := githubfake.DemoScenario(ref, githubfake.User(demoViewer))
	require.NotEmpty(t, sc.Steps)
	assert.Regexp(t, `^prmonitor demo: "a review round trip", played on a simulated GitHub at http://127\.0\.0\.1:\d+\n`, res.stdout)

	// Every step is printed, in order, each followed by what prmonitor derived.
	rest := res.stdout
	for i, step := range sc.Steps {
		head := fmt.Sprintf("%2d/%d  ", i+1, len(sc.Steps))
		at := strings.Index(rest, head)
		require.GreaterOrEqual(t, at, 0, "step %d missing", i+1)
		rest = rest[at:]
		line, after, _ := strings.Cut(rest, "\n")
		assert.Contains(t, line, oneLine(step.Describe()))
		assert.Regexp(t, `^\s+attention\s+[a-z_]+: \S`, after)
		assert.Regexp(t, `(?m)^\s+needs_refine\s+(true|false)$`, after)
		assert.Regexp(t, `(?m)^\s+ci\s+\d+ checks?: \d+ passed, \d+ failed, \d+ cancelled, \d+ pending$`, after)
		rest = after
	}
	// The story's beats, as prmonitor derives them.
	for _, want := range []string{
		"attention     ci_pending: ",
		"attention     ci_failed: 1 of 3 checks",
		"attention     new_comments: 1 unresolved thread",
		"attention     changes_requested: alice requested changes",
		"needs_refine  true",
	} {
		assert.Contains(t, res.stdout, want)
	}
	assert.Contains(t, res.stdout, fmt.Sprintf("%d steps, %d GraphQL queries (one per poll)", len(sc.Steps), len(sc.Steps)))
}

func TestDemoNarrator(t *testing.T) {
	var b strings.Builder
	start := githubfake.DefaultStart()
	n := newDemoNarrator(&b, 12, start)
	n.Step(3, start.Add(125*60e9), "alice requests changes:\n\x1b[31m\"fix it\"")
	n.Facts(prstatus.Facts{
		Attention: prstatus.Attention{Kind: prstatus.AttentionChangesRequested, Reason: "alice requested changes"},
		Refine:    prstatus.RefineFacts{NeedsRefine: true},
		CI:        prstatus.CIFacts{Total: 1, Failed: 1},
	})
	require.NoError(t, n.Err())
	assert.Equal(t, ` 3/12  +2h05m  alice requests changes: [31m"fix it"
          attention     changes_requested: alice requested changes
          needs_refine  true
          ci            1 check: 0 passed, 1 failed, 0 cancelled, 0 pending

`, b.String())
}
