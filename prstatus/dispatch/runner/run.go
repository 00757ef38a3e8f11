package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Source is what a run reads and writes through; *ghclient.Client is one.
type Source interface {
	RepoSnapshot(ctx context.Context, repo dispatch.RepoRef, cost *ghclient.RepoCost) (*dispatch.Snapshot, error)
	OlderComments(ctx context.Context, s *dispatch.Snapshot, numbers []int, cost *ghclient.RepoCost) error
	ThreadReplies(ctx context.Context, s *dispatch.Snapshot, numbers []int, cost *ghclient.RepoCost) error
	UnassignedIssues(ctx context.Context, s *dispatch.Snapshot, want int, keep func(dispatch.Issue) bool, cost *ghclient.RepoCost) error
	LockEvents(ctx context.Context, s *dispatch.Snapshot, numbers []int, cost *ghclient.RepoCost) (map[int][]dispatch.LabelEvent, error)
	// REST carries the writes, and the read of the configuration: go-github over prmonitor's
	// transport (ghclient.Client.REST).
	REST() *github.Client
}

var _ Source = (*ghclient.Client)(nil)

// Request is one run.
type Request struct {
	Repo      dispatch.RepoRef
	Config    dispatch.Config
	Templates *dispatch.Templates
	// DryRun decides and prints the same, and writes nothing.
	DryRun bool
	Now    time.Time
}

// Result is one run's outcome: what --json prints and pr_dispatch returns.
type Result struct {
	Repo string `json:"repo"`
	// User is the identity the workers act as (the config's, else the token's).
	User   string `json:"user"`
	DryRun bool   `json:"dry_run"`
	dispatch.Plan
	// GitHub is what the run cost: GraphQL requests and points, and REST writes.
	GitHub Cost `json:"github"`
}

// Cost is what one run asked of GitHub.
type Cost struct {
	ghclient.RepoCost
	Writes int `json:"rest_writes"`
}

// maxDecisions bounds how often the rules may decide again: after reading older comments, the
// threads' replies and the issues, and after each round of tasks that could not be rendered.
const maxDecisions = 8

// Run carries out one run. On an error the result holds what was done before it (the writes
// that landed are marked Applied); nothing is written after a failed read or write.
func Run(ctx context.Context, src Source, req Request) (Result, error) {
	if req.Templates == nil {
		return Result{}, errors.New("dispatch: no task templates")
	}
	res := Result{Repo: req.Repo.String(), DryRun: req.DryRun}
	snap, err := src.RepoSnapshot(ctx, req.Repo, &res.GitHub.RepoCost)
	if err != nil {
		return res, err
	}
	res.User = req.Config.User
	if res.User == "" {
		res.User = snap.Viewer
	}
	if err := decide(ctx, src, snap, req, &res); err != nil {
		return res, err
	}
	if req.DryRun || len(res.Plan.Mutations) == 0 {
		return res, nil
	}
	w := &writer{gh: src.REST(), repo: req.Repo}
	for i := range res.Plan.Mutations {
		m := &res.Plan.Mutations[i]
		res.GitHub.Writes++
		if err := w.apply(ctx, *m); err != nil {
			return res, fmt.Errorf("%s %q on #%d: %w (%d earlier write%s landed; nothing after it was tried)",
				describe(m.Action), m.Value, m.Number, err, i, text.Plural(i, "", "s"))
		}
		m.Applied = true
	}
	return res, confirmLocks(ctx, src, snap, req.Config, &res)
}

// decide runs the rules until they need nothing more and every spawn's task is rendered: it reads
// what they ask for, and skips a pull request whose task cannot be rendered, so that one bad
// pull request never stops the run for the others.
func decide(ctx context.Context, src Source, snap *dispatch.Snapshot, req Request, res *Result) error {
	for i := 0; ; i++ {
		if i == maxDecisions {
			return fmt.Errorf("dispatch: the rules still need data after %d decisions", maxDecisions)
		}
		res.Plan = dispatch.Decide(snap, req.Config, req.Now)
		need := res.Plan.Need
		if need.Empty() {
			failed := res.Plan.RenderTasks(req.Templates)
			if failed == nil {
				return nil
			}
			if snap.Unrenderable == nil {
				snap.Unrenderable = map[int]string{}
			}
			for n, why := range failed {
				snap.Unrenderable[n] = why
			}
			continue
		}
		if len(need.CommentsOf) > 0 {
			if err := src.OlderComments(ctx, snap, need.CommentsOf, &res.GitHub.RepoCost); err != nil {
				return err
			}
		}
		if len(need.ThreadsOf) > 0 {
			if err := src.ThreadReplies(ctx, snap, need.ThreadsOf, &res.GitHub.RepoCost); err != nil {
				return err
			}
		}
		if need.Issues > 0 {
			if err := src.UnassignedIssues(ctx, snap, need.Issues, dispatch.TakesIssue(req.Config, snap.Viewer), &res.GitHub.RepoCost); err != nil {
				return err
			}
		}
	}
}

func describe(a dispatch.MutationAction) string {
	switch a {
	case dispatch.ActionRemoveLabel:
		return "remove the label"
	case dispatch.ActionAddLabel:
		return "add the label"
	case dispatch.ActionAssign:
		return "assign"
	}
	return string(a)
}
