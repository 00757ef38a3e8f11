package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// greenPR is testRef opened by the viewer with a passing check: it needs a self-review.
func greenPR() githubfake.Step {
	return openPR(githubfake.ChecksQueued{Jobs: []string{"build"}}, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess})
}

func restWrites(g *fakeGitHub) int {
	n := 0
	for _, r := range g.Requests() {
		if r.Kind == githubfake.KindREST && r.Method != "GET" {
			n++
		}
	}
	return n
}

func TestDispatchPrintsLinesAndWrites(t *testing.T) {
	// The fake's clock is the command's: the lock's age is measured in one time.
	f := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(testToken), githubfake.WithClock(func() time.Time { return testNow }))
	g := &fakeGitHub{Fake: f, url: f.Start()}
	t.Cleanup(f.Close)
	g.play(t, greenPR())
	head := g.PR(githubfake.Ref(testRef)).HeadOID()

	dry := runCLI(t, withToken(), "dispatch", "--dry-run", "--github-url", g.url, "octo/widgets")
	require.Equal(t, exitOK, dry.code, dry.stderr)
	assert.Equal(t, "SPAWN:self-review:7:"+head+"\n", dry.stdout)
	assert.Empty(t, dry.stderr)
	assert.Zero(t, restWrites(g), "--dry-run writes nothing")
	assert.Zero(t, g.GraphQLMutations())

	res := runCLI(t, withToken(), "dispatch", "octo/widgets", "--github-url", g.url)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, dry.stdout, res.stdout, "the same lines")
	assert.Equal(t, 1, restWrites(g), "the spawn's lock")
	var labels []string
	require.NoError(t, g.View(githubfake.Ref(testRef), func(pr *githubfake.PullRequest) { labels = pr.LabelNames() }))
	assert.Equal(t, []string{"wip"}, labels)

	again := runCLI(t, withToken(), "dispatch", "--github-url", g.url, "octo/widgets")
	require.Equal(t, exitOK, again.code, again.stderr)
	assert.Empty(t, again.stdout, "the lock holds the pull request: nothing is due")
}

func TestDispatchJSON(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, greenPR())
	res := runCLI(t, withToken(), "dispatch", "--json", "--dry-run", "--github-url", g.url, "octo/widgets")
	require.Equal(t, exitOK, res.code, res.stderr)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out), "one JSON object:\n%s", res.stdout)
	for _, key := range []string{"spawns", "handoffs", "prs", "mutations", "dry_run"} {
		assert.Contains(t, out, key)
	}
	assert.Equal(t, true, out["dry_run"])
	assert.Equal(t, []any{}, out["handoffs"], "lists are [] when empty")
	spawns := out["spawns"].([]any)
	require.Len(t, spawns, 1)
	spawn := spawns[0].(map[string]any)
	for _, key := range []string{"type", "number", "sha", "reason", "task"} {
		assert.Contains(t, spawn, key)
	}
	assert.Equal(t, "self-review", spawn["type"])
	assert.True(t, strings.HasPrefix(spawn["task"].(string), "ABSOLUTE CONSTRAINTS."))
	prs := out["prs"].([]any)
	require.Len(t, prs, 1)
	assert.Equal(t, map[string]any{"number": 7.0, "decision": "spawn", "rule": "7", "reason": prs[0].(map[string]any)["reason"]}, prs[0])
	mutations := out["mutations"].([]any)
	assert.Equal(t, []any{map[string]any{"action": "add_label", "number": 7.0, "value": "wip", "applied": false}}, mutations)
	assert.Equal(t, "dev", out["user"], "the token's user by default")
}

func TestDispatchConfigFile(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, greenPR())
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".prmonitor"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".prmonitor", "dispatch.yaml"), []byte("labels: {wip: busy}\n"), 0o644))
	t.Chdir(dir)

	res := runCLI(t, withToken(), "dispatch", "--json", "--dry-run", "--github-url", g.url, "octo/widgets")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, `"value": "wip"`, "a file in the working directory is never read: whoever runs there may not have written it")
	assert.NotContains(t, res.stdout, `"value": "busy"`)

	g.PutFile("octo", "widgets", ".prmonitor/dispatch.yaml", "labels: {wip: busy}\n")
	res = runCLI(t, withToken(), "dispatch", "--json", "--verbose", "--github-url", g.url, "octo/widgets")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, `"value": "busy"`, "the repository's own file, on its default branch, through the API")
	assert.Contains(t, res.stderr, "configuration from octo/widgets:.prmonitor/dispatch.yaml (default branch)")

	g.PutFile("octo", "widgets", ".prmonitor/dispatch.yaml", "max_spawn: 1\n")
	res = runCLI(t, withToken(), "dispatch", "--github-url", g.url, "octo/widgets")
	assert.Equal(t, exitUsage, res.code, "the repository's file with a typo is a configuration error")
	assert.Contains(t, res.stderr, "octo/widgets:.prmonitor/dispatch.yaml (default branch): invalid dispatch configuration")

	other := filepath.Join(dir, "other.yaml")
	require.NoError(t, os.WriteFile(other, []byte("max_spawns: 0\nwip_stale_after: 2h\n"), 0o644))
	res = runCLI(t, withToken(), "dispatch", "--config", other, "--github-url", g.url, "octo/widgets")
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Empty(t, res.stdout, "--config replaces the default file: no spawn allowed")
}

func TestDispatchBadInput(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, greenPR())
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	badYAML := write("bad.yaml", "labels: [wip\n")
	unknownKey := write("typo.yaml", "max_spawn: 2\n")
	mergeTpl := filepath.Dir(write("tpl/rebase.md", "Rebase, then merge the pull request.\n"))
	down := refusedURL(t)

	tests := []struct {
		name     string
		te       *testEnv
		args     []string
		fault    *githubfake.Fault
		wantCode int
		wantErr  string
	}{
		{name: "no repository", te: withToken(), args: []string{}, wantCode: exitUsage, wantErr: "want one repository"},
		{name: "two repositories", te: withToken(), args: []string{"octo/widgets", "octo/gears"}, wantCode: exitUsage, wantErr: "got 2 arguments"},
		{name: "a pull request, not a repository", te: withToken(), args: []string{"octo/widgets#7"}, wantCode: exitUsage, wantErr: "want OWNER/REPO"},
		{name: "a malformed owner", te: withToken(), args: []string{"octo./widgets"}, wantCode: exitUsage, wantErr: "invalid owner or repository name"},
		{name: "no slash", te: withToken(), args: []string{"widgets"}, wantCode: exitUsage, wantErr: "want OWNER/REPO"},
		{name: "unknown flag", te: withToken(), args: []string{"--bogus", "octo/widgets"}, wantCode: exitUsage, wantErr: "unknown flag --bogus"},
		{name: "a --config that does not exist", te: withToken(), args: []string{"--config", filepath.Join(dir, "nope.yaml"), "octo/widgets"},
			wantCode: exitUsage, wantErr: "invalid dispatch configuration: open "},
		{name: "a --config that is not YAML", te: withToken(), args: []string{"--config", badYAML, "octo/widgets"}, wantCode: exitUsage, wantErr: "bad.yaml: invalid dispatch configuration: yaml"},
		{name: "a --config with an unknown key", te: withToken(), args: []string{"--config", unknownKey, "octo/widgets"}, wantCode: exitUsage, wantErr: "field max_spawn not found"},
		{name: "--templates that do not exist", te: withToken(), args: []string{"--templates", filepath.Join(dir, "none"), "octo/widgets"}, wantCode: exitUsage, wantErr: "templates:"},
		{name: "a template that tells a worker to merge", te: withToken(), args: []string{"--templates", mergeTpl, "octo/widgets"}, wantCode: exitUsage, wantErr: "may never merge"},
		{name: "no token", te: &testEnv{}, args: []string{"octo/widgets"}, wantCode: exitNoToken, wantErr: "no GitHub token found"},
		{name: "token refused (401)", te: &testEnv{vars: map[string]string{"GITHUB_TOKEN": "ghp_WRONGTOKEN9876543210zyxwvu"}}, args: []string{"octo/widgets"}, wantCode: exitAuth, wantErr: "GitHub rejected the token (401)"},
		{name: "no such repository", te: withToken(), args: []string{"nobody/nothing"}, wantCode: exitNotFound, wantErr: "not found on GitHub"},
		{name: "GitHub unreachable", te: withToken(), args: []string{"--github-url", down, "octo/widgets"}, wantCode: exitUnreachable, wantErr: "connection refused"},
		{name: "the token never goes over plain http off loopback", te: withToken(), args: []string{"--github-url", "http://ghe.example.com/api/v3", "octo/widgets"},
			wantCode: exitUsage, wantErr: "must use https (plain http is allowed only on a loopback host)"},
		{name: "GitHub down (503)", te: withToken(), args: []string{"octo/widgets"},
			fault: &githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 503}, wantCode: exitUnreachable, wantErr: "GitHub is unavailable: HTTP 503"},
		{name: "rate limited for an hour", te: withToken(), args: []string{"octo/widgets"},
			fault:    &githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeRateLimited, RateLimited: true, RetryAfter: time.Hour},
			wantCode: exitRateLimited, wantErr: "GitHub rate limit exceeded"},
		{name: "the lock write rate limited", te: withToken(), args: []string{"octo/widgets"},
			fault:    &githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/issues/*/labels"), Status: 429, RetryAfter: 10 * time.Minute},
			wantCode: exitRateLimited, wantErr: `add the label "wip" on #7: GitHub rate limit exceeded`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fault != nil {
				h := g.InjectFault(*tt.fault)
				t.Cleanup(h.Remove)
			}
			args := []string{"dispatch"}
			if !strings.Contains(strings.Join(tt.args, " "), "--github-url") {
				args = append(args, "--github-url", g.url)
			}
			res := runCLI(t, tt.te, append(args, tt.args...)...)
			assert.Equal(t, tt.wantCode, res.code, res.stderr)
			assert.Empty(t, res.stdout, "stdout stays empty on error")
			assert.Regexp(t, `^prmonitor dispatch: [^\n]+\n$`, res.stderr, "one line")
			assert.Contains(t, res.stderr, tt.wantErr)
			assert.NotContains(t, res.stdout+res.stderr, testToken)
		})
	}
}

func TestDispatchHelp(t *testing.T) {
	res := runCLI(t, nil, "dispatch", "--help")
	assert.Equal(t, exitOK, res.code)
	for _, s := range []string{"usage: prmonitor dispatch", "--dry-run", "--templates", "--config", "SPAWN:<type>:<number>:<sha>", "HANDOFF:<number>"} {
		assert.Contains(t, res.stdout, s)
	}
}
