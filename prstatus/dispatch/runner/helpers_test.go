package runner_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

const testToken = "ghp_DISPATCHTESTSECRET0123456789abcdef"

var (
	repo   = dispatch.RepoRef{Owner: "acme", Name: "widgets"}
	alice  = githubfake.User("alice")
	botAcc = githubfake.Bot("review-bot")
	worker = githubfake.User("worker")
)

// world is a fake GitHub with a client on it, and a recording of every merge attempt.
type world struct {
	t      *testing.T
	f      *githubfake.Fake
	c      *ghclient.Client
	cfg    dispatch.Config
	tpl    *dispatch.Templates
	merges int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t}
	w.f = githubfake.MustNew(githubfake.WithViewer("worker"), githubfake.WithToken(testToken),
		githubfake.WithMergeHook(func(githubfake.Merge) { w.merges++ }))
	url := w.f.Start()
	t.Cleanup(w.f.Close)
	c, err := ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken(testToken), Version: "test",
		Sleep: func(context.Context, time.Duration) error { return nil }})
	require.NoError(t, err)
	w.c = c
	w.cfg = dispatch.DefaultConfig()
	w.tpl, err = dispatch.BuiltinTemplates()
	require.NoError(t, err)
	w.f.AddRepository(repo.Owner, repo.Name)
	return w
}

func (w *world) ref(n int) prstatus.PRRef {
	return prstatus.PRRef{Owner: repo.Owner, Repo: repo.Name, Number: n}
}

// on applies events to pull request or issue n.
func (w *world) on(n int, events ...githubfake.Event) {
	w.t.Helper()
	require.NoError(w.t, w.f.Apply(githubfake.Ref(w.ref(n)), events...))
}

func (w *world) head(n int) string { return w.f.PR(githubfake.Ref(w.ref(n))).HeadOID() }

// run runs the dispatcher at the fake's current time.
func (w *world) run(dryRun bool) (runner.Result, error) {
	w.t.Helper()
	return runner.Run(w.t.Context(), w.c, runner.Request{Repo: repo, Config: w.cfg, Templates: w.tpl, DryRun: dryRun, Now: w.f.Now()})
}

func (w *world) mustRun(dryRun bool) runner.Result {
	w.t.Helper()
	res, err := w.run(dryRun)
	require.NoError(w.t, err)
	return res
}

// decision is the run's decision about pull request n.
func decision(t *testing.T, res runner.Result, n int) dispatch.PRDecision {
	t.Helper()
	for _, d := range res.PRs {
		if d.Number == n {
			return d
		}
	}
	t.Fatalf("no decision about #%d in %+v", n, res.PRs)
	return dispatch.PRDecision{}
}

func lines(res runner.Result) []string {
	return strings.Fields(res.Lines())
}

// Markers the workers and the bots leave.
func selfReview(sha, verdict string) string {
	return fmt.Sprintf("Self-review against %s\n\nLooked at everything.\n\nAssessment: %s", sha, verdict)
}

func botReview(name, sha string, findings ...int) string {
	body := fmt.Sprintf("<!-- review-bot:%s -->\nEvaluated against %s\n", name, sha[:7])
	for _, f := range findings {
		body += fmt.Sprintf("Finding #%d: something\n", f)
	}
	return body
}

// green opens pull request n by the worker with one passing check.
func (w *world) green(n int, open githubfake.OpenPR) {
	w.t.Helper()
	if open.Author.Login == "" {
		open.Author = worker
	}
	if open.Title == "" {
		open.Title = fmt.Sprintf("change %d", n)
	}
	if open.Head == "" {
		open.Head = fmt.Sprintf("feature-%d", n)
	}
	w.on(n, open, githubfake.ChecksQueued{Jobs: []string{"build"}},
		githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess})
}

// ready opens pull request n as rule 10 hands it off: green, a clean self-review of its head, and
// the sonnet review bot's approval evaluated against it. The world's config names that bot and
// alice as the hand-off assignee.
func (w *world) ready(n int) {
	w.t.Helper()
	w.cfg.ReviewBots = []dispatch.ReviewBot{{Name: "sonnet"}}
	w.cfg.HandoffAssignee = "alice"
	w.green(n, githubfake.OpenPR{})
	h := w.head(n)
	w.on(n, githubfake.Comment{Author: worker, Body: selfReview(h, "✅ Clean")},
		githubfake.Approve(botAcc, botReview("sonnet", h)))
}

// writes renders the run's mutations as "action number value" for comparison.
func writes(res runner.Result) []string {
	out := []string{}
	for _, m := range res.Mutations {
		out = append(out, fmt.Sprintf("%s %d %s", m.Action, m.Number, m.Value))
	}
	return out
}

// restWrites are the recorded REST requests that change something.
func (w *world) restWrites() []githubfake.Request {
	var out []githubfake.Request
	for _, r := range w.f.Requests() {
		if r.Kind == githubfake.KindREST && r.Method != "GET" {
			out = append(out, r)
		}
	}
	return out
}

func itoa(n int) string { return fmt.Sprint(n) }

// allowedWrite matches the only REST writes a run may make: labels and assignees through the
// issues API.
var allowedWrite = regexp.MustCompile(`^(POST /repos/acme/widgets/issues/\d+/labels|DELETE /repos/acme/widgets/issues/\d+/labels/[^/]+|POST /repos/acme/widgets/issues/\d+/assignees)$`)

// assertOnlyAllowedRequests checks every request the fake recorded: GraphQL queries (never a
// mutation), REST reads, and the allowed writes; no merge, no close, no branch deletion.
func (w *world) assertOnlyAllowedRequests(t *testing.T) {
	t.Helper()
	for _, r := range w.f.Requests() {
		switch {
		case r.IsMerge():
			t.Errorf("a merge request: %s %s", r.Method, r.Path)
		case r.Kind == githubfake.KindGraphQL:
			assert.Equal(t, githubfake.OpQuery, r.Operation, "GraphQL %s %s", r.Operation, r.Mutation)
		case r.Kind == githubfake.KindREST && r.Method != "GET":
			assert.Regexp(t, allowedWrite, r.Method+" "+r.Path)
		}
	}
	assert.Zero(t, w.merges, "merge attempts")
	assert.Empty(t, w.f.Forbidden(), "close or branch-deletion attempts")
}
