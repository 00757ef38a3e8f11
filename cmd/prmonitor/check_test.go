package main

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var (
	bob   = githubfake.User("bob")
	carol = githubfake.User("carol")
)

func openPR(events ...githubfake.Event) githubfake.Step {
	return at(0, append([]githubfake.Event{githubfake.OpenPR{Title: "Add widgets"}}, events...)...)
}

func requestChanges() githubfake.Event {
	return githubfake.RequestChanges(bob, "Please rework the cache.")
}

func push(headline string) githubfake.Event {
	return githubfake.Push{Commits: []githubfake.NewCommit{{Headline: headline}}}
}

// checkJSON runs `check --json` against the fake and decodes the object it printed.
func checkJSON(t *testing.T, g *fakeGitHub, te *testEnv, extra ...string) map[string]any {
	t.Helper()
	args := append([]string{"check", "--json", "--github-url", g.url, testRef.String()}, extra...)
	res := runCLI(t, te, args...)
	require.Equal(t, exitOK, res.code, "stderr: %s", res.stderr)
	require.Empty(t, res.stderr)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out), res.stdout)
	return out
}

func TestCheckNeedsRefine(t *testing.T) {
	tests := []struct {
		name          string
		steps         []githubfake.Step
		wantRefine    bool
		wantAttention prstatus.AttentionKind
	}{
		{
			name:          "changes requested, nothing pushed since",
			steps:         []githubfake.Step{openPR(), at(time.Hour, requestChanges())},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "a Merge branch 'main' commit after the request does not answer it",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(time.Hour, push("Merge branch 'main' into feature"))},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "a two-parent merge commit does not answer it",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(time.Hour, githubfake.MergeBase{})},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "a rebase onto a newer base rewrites committer dates but does not answer it",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(time.Hour, githubfake.Rebase{})},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "a new fix commit answers it",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(40*time.Minute, push("Rework the cache"))},
			wantRefine:    false,
			wantAttention: prstatus.AttentionNone, // waiting for bob to re-review
		},
		{
			name: "round 2: a new request after the fix",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(40*time.Minute, push("Rework the cache")),
				at(20*time.Minute, githubfake.RequestChanges(bob, "Still racy."))},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "an approval after the fix",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(40*time.Minute, push("Rework the cache")),
				at(20*time.Minute, githubfake.Approve(bob, "Thanks"))},
			wantRefine:    false,
			wantAttention: prstatus.AttentionReadyToMerge,
		},
		{
			name: "a COMMENTED review after the request does not override it",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(30*time.Minute, githubfake.CommentReview(bob, "One more thing: naming."))},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "a dismissed request",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(30*time.Minute, githubfake.ReviewDismissed{Reviewer: bob, By: carol, Message: "Obsolete"})},
			wantRefine:    false,
			wantAttention: prstatus.AttentionNone,
		},
		{
			name: "reviewDecision null (no required reviews) with a CHANGES_REQUESTED latest review",
			steps: []githubfake.Step{openPR(), at(time.Hour, requestChanges()),
				at(30*time.Minute, githubfake.RequireApprovals{N: 0})},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
		{
			name: "reviewDecision computed (a required-review rule) agrees",
			steps: []githubfake.Step{at(0, githubfake.OpenPR{Title: "Add widgets", RequiredApprovals: 1}),
				at(time.Hour, requestChanges())},
			wantRefine:    true,
			wantAttention: prstatus.AttentionChangesRequested,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			g.play(t, tt.steps...)
			out := checkJSON(t, g, withToken())

			assert.Equal(t, tt.wantRefine, out["needs_refine"], out["needs_refine_reason"])
			attention := out["attention"].(map[string]any)
			assert.Equal(t, string(tt.wantAttention), attention["kind"], attention["reason"])
			assert.NotEmpty(t, attention["reason"])
			assert.NotEmpty(t, out["needs_refine_reason"])
			assert.Equal(t, "OPEN", out["state"])
			assert.Equal(t, g.PR(githubfake.Ref(testRef)).HeadOID(), out["head_sha"])
			assert.NotNil(t, out["last_substantive_commit_at"])
			if tt.wantRefine {
				assert.Equal(t, []any{"bob"}, out["changes_requested_by"])
				assert.NotNil(t, out["last_changes_requested_at"])
			}
		})
	}
}

func TestCheckJSONFields(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t,
		openPR(githubfake.ChecksQueued{Jobs: []string{"build", "test"}, Required: []string{"test"}}),
		at(5*time.Minute, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
			githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure}),
		at(time.Hour, githubfake.RequestChanges(bob, "Please fix", githubfake.NewThread{Path: "cache.go", Line: 12, Body: "This races."})),
		at(10*time.Minute, githubfake.Approve(carol, "fine by me")),
	)
	out := checkJSON(t, g, withToken())

	// Field names are a documented contract: the README lists them.
	for _, field := range []string{
		"pr", "url", "title", "author", "viewer", "state", "is_draft", "head_ref", "head_sha", "base_ref",
		"mergeable", "merge_state_status", "review_decision", "attention", "attentions",
		"needs_refine", "needs_refine_reason", "last_changes_requested_at", "last_substantive_commit_at",
		"refine_round", "rewritten_since_review", "reviews", "changes_requested_by", "approvals",
		"stale_approvals", "pending_review_requests", "awaiting_re_request", "commits", "ci", "threads",
		"rate_limit", "checked_at",
	} {
		assert.Contains(t, out, field)
	}
	assert.Equal(t, "octo/widgets#7", out["pr"])
	assert.Equal(t, "MERGEABLE", out["mergeable"])
	assert.Nil(t, out["review_decision"], "null without a required-review rule")
	assert.Equal(t, []any{"bob"}, out["changes_requested_by"])
	assert.Equal(t, []any{"carol"}, out["approvals"])
	assert.Equal(t, []any{}, out["stale_approvals"])
	assert.Equal(t, testNow.Format(time.RFC3339), out["checked_at"])

	ci := out["ci"].(map[string]any)
	assert.Equal(t, map[string]any{"total": 2.0, "passed": 1.0, "failed": 1.0, "cancelled": 0.0, "pending": 0.0},
		map[string]any{"total": ci["total"], "passed": ci["passed"], "failed": ci["failed"], "cancelled": ci["cancelled"], "pending": ci["pending"]})
	failed := ci["failed_checks"].([]any)
	require.Len(t, failed, 1)
	check := failed[0].(map[string]any)
	assert.Equal(t, "test", check["name"])
	assert.Equal(t, "CI", check["workflow"])
	assert.Equal(t, "FAILURE", check["result"])
	assert.Equal(t, true, check["required"])
	assert.NotEmpty(t, check["url"])

	threads := out["threads"].(map[string]any)
	assert.Equal(t, 1.0, threads["needs_action"])
	assert.Equal(t, 0.0, threads["resolved"])
	unresolved := threads["unresolved"].([]any)
	require.Len(t, unresolved, 1)
	assert.Equal(t, "cache.go", unresolved[0].(map[string]any)["path"])
	assert.Equal(t, "This races.", unresolved[0].(map[string]any)["excerpt"])

	var kinds []any
	for _, a := range out["attentions"].([]any) {
		kinds = append(kinds, a.(map[string]any)["kind"])
	}
	assert.Equal(t, []any{"changes_requested", "new_comments", "ci_failed"}, kinds)
	assert.Greater(t, out["rate_limit"].(map[string]any)["limit"], 0.0)
}

func TestCheckTable(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t,
		openPR(),
		at(30*time.Minute, githubfake.Approve(carol, "fine by me")),
		at(10*time.Minute, push("Merge branch 'main' into feature"),
			githubfake.ChecksQueued{Jobs: []string{"build", "test"}, Required: []string{"test"}}),
		at(5*time.Minute, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
			githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure}),
		at(time.Hour, githubfake.RequestChanges(bob, "Please fix", githubfake.NewThread{Path: "cache.go", Line: 12, Body: "This races."})),
	)
	test, err := g.PR(githubfake.Ref(testRef)).Check("test")
	require.NoError(t, err)

	res := runCLI(t, withToken(), "check", testRef.String(), "--github-url", g.url)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Empty(t, res.stderr)
	head := g.PR(githubfake.Ref(testRef)).HeadOID()
	for _, want := range []string{
		`(?m)^pull request\s+octo/widgets#7  Add widgets$`,
		`(?m)^head\s+feature @ ` + head[:7] + ` → main$`,
		`(?m)^state\s+OPEN$`,
		`(?m)^mergeable\s+MERGEABLE`,
		`(?m)^attention\s+changes requested \(changes_requested\)$`,
		`(?m)^  reason\s+bob requested changes at \S+; .*predates it`,
		`(?m)^needs_refine\s+true$`,
		`(?m)^  last changes requested\s+\d{4}-\d\d-\d\dT`,
		`(?m)^  last substantive commit\s+\d{4}-\d\d-\d\dT.*\(author date\)$`,
		`(?m)^  latest verdicts\s+bob\s+CHANGES_REQUESTED\s+\S+\s+on the head$`,
		`(?m)^\s+carol\s+APPROVED\s+\S+\s+on \w{7}$`,
		`(?m)^  changes requested by\s+bob$`,
		`(?m)^  stale approvals\s+carol$`,
		`(?m)^\s+\w{7}\s+merge\s+authored \S+\s+Merge branch 'main' into feature$`,
		`(?m)^ci\s+2 checks: 1 passed, 1 failed, 0 cancelled, 0 pending$`,
		`(?m)^  failed\s+CI / test\s+FAILURE \(required\)\s+http\S+/job/` + strconv.FormatInt(test.JobID, 10) + `$`,
		`(?m)^threads\s+1 needs action, 0 reviewer replied, 0 waiting for reply, 0 resolved$`,
		`(?m)^  needs action\s+cache.go:12\s+bob\s+"This races."$`,
		`(?m)^also matching\s+`,
		`(?m)^\s+new review comments \(new_comments\)\s+1 unresolved thread needs action`,
		`(?m)^\s+checks failed \(ci_failed\)\s+1 of 2 checks on \w+ failed: CI / test$`,
	} {
		assert.Regexp(t, want, res.stdout)
	}
}

func TestCheckOneGraphQLRequest(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t,
		openPR(githubfake.ChecksQueued{Jobs: []string{"build", "test", "lint"}}),
		at(time.Hour, githubfake.RequestChanges(bob, "Please fix", githubfake.Threads(3, "a.go")...)),
		at(time.Hour, push("Fix")),
	)
	g.ResetRecording()
	res := runCLI(t, withToken(), "check", "--json", "--github-url", g.url, testRef.String())
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, 1, g.GraphQLQueries())
	assert.Equal(t, 0, g.GraphQLMutations())
	assert.Equal(t, 0, g.RESTCalls())
	assert.Empty(t, g.Forbidden())
}

func TestCheckArguments(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, openPR())
	prURL := "https://github.com/octo/widgets/pull/7/files"
	tests := []struct {
		name string
		te   *testEnv
		args []string
	}{
		{name: "flags first", te: withToken(), args: []string{"--json", "--github-url", g.url, "octo/widgets#7"}},
		{name: "flags last", te: withToken(), args: []string{"octo/widgets#7", "--json", "--github-url=" + g.url}},
		{name: "flags around", te: withToken(), args: []string{"-json", prURL, "-github-url", g.url}},
		{name: "after --", te: withToken(), args: []string{"--json", "--github-url", g.url, "--", "octo/widgets#7"}},
		{name: "GITHUB_API_URL", te: &testEnv{vars: map[string]string{"GITHUB_TOKEN": testToken, "GITHUB_API_URL": g.url}},
			args: []string{"--json", "octo/widgets#7"}},
		{name: "--github-url wins over GITHUB_API_URL and GITHUB_GRAPHQL_URL", te: &testEnv{vars: map[string]string{
			"GITHUB_TOKEN": testToken, "GITHUB_API_URL": "https://api.github.com", "GITHUB_GRAPHQL_URL": "https://api.github.com/graphql"}},
			args: []string{"--json", "--github-url", g.url, "octo/widgets#7"}},
		{name: "GH_TOKEN", te: &testEnv{vars: map[string]string{"GH_TOKEN": testToken}},
			args: []string{"--json", "--github-url", g.url, "octo/widgets#7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, tt.te, append([]string{"check"}, tt.args...)...)
			require.Equal(t, exitOK, res.code, res.stderr)
			var out map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
			assert.Equal(t, "octo/widgets#7", out["pr"])
			assert.Empty(t, tt.te.commands(), "no need to ask gh")
			assert.NotContains(t, res.stdout+res.stderr, testToken)
		})
	}
}

func TestCheckTokenFromGH(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, openPR())
	te := &testEnv{gh: func(args []string) ([]byte, error) { return []byte(testToken + "\n"), nil }}
	out := checkJSON(t, g, te)
	assert.Equal(t, "octo/widgets#7", out["pr"])
	host := g.url[len("http://"):]
	assert.Equal(t, []commandCall{{name: "gh", args: []string{"auth", "token", "--hostname", host}}}, te.commands())
}

func TestCheckTableIsTerminalSafe(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t,
		at(0, githubfake.OpenPR{Title: "Add widgets\x1b]0;owned\x07", Head: "feat\x1b[2J"}),
		at(time.Hour, githubfake.RequestChanges(bob, "Please fix",
			githubfake.NewThread{Path: "a.go", Line: 1, Body: "line one\nline two\x1b[31m red \u202eevil"})),
	)
	res := runCLI(t, withToken(), "check", "--github-url", g.url, testRef.String())
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.NotContains(t, res.stdout, "\x1b")
	assert.NotContains(t, res.stdout, "\x07")
	assert.NotContains(t, res.stdout, "\u202e")
	assert.Regexp(t, `(?m)^  needs action\s+a\.go:1\s+bob\s+"line one line two red evil"$`, res.stdout)
	assert.NotContains(t, res.stdout, testToken)
}
