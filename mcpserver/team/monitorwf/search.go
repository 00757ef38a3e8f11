package monitorwf

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// A user's open pull requests, for pr_monitor_start_all: one search, run by a worker (the only
// process that holds a GitHub token) as the one activity of a short workflow, so the HTTP front
// end needs no GitHub access of its own.

// Names of the search's workflow and activity.
const (
	WorkflowFindOpenPRs = "prmonitor.FindOpenPRs"
	ActivitySearch      = "prmonitor.SearchOpenPRs"
)

// Searcher finds open pull requests (ghclient.Client implements it).
type Searcher interface {
	OpenPRs(ctx context.Context, q ghclient.OpenPRsQuery) (ghclient.OpenPRs, error)
}

// FindOpenPRs is the search's workflow: the one activity, retried as a read is.
func FindOpenPRs(ctx workflow.Context, q ghclient.OpenPRsQuery) (ghclient.OpenPRs, error) {
	var out ghclient.OpenPRs
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, readOptions()), ActivitySearch, q).Get(ctx, &out)
	return out, err
}

// SearchOpenPRs is the activity.
func (a *Activities) SearchOpenPRs(ctx context.Context, q ghclient.OpenPRsQuery) (ghclient.OpenPRs, error) {
	if a.Search == nil {
		return ghclient.OpenPRs{}, classify(fmt.Errorf("%w: this worker cannot search", ghclient.ErrForbidden))
	}
	defer heartbeat(ctx)()
	out, err := a.Search.OpenPRs(ctx, q)
	if err != nil {
		return ghclient.OpenPRs{}, classify(err)
	}
	return out, nil
}

// FindOpenPRs runs the search on a worker and waits for its answer. q.For names the user.
func (s Starter) FindOpenPRs(ctx context.Context, q ghclient.OpenPRsQuery) (ghclient.OpenPRs, error) {
	run, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: s.TaskQueue}, WorkflowFindOpenPRs, q)
	if err != nil {
		return ghclient.OpenPRs{}, fmt.Errorf("search the open pull requests: %w", err)
	}
	var out ghclient.OpenPRs
	if err := run.Get(ctx, &out); err != nil {
		return ghclient.OpenPRs{}, fmt.Errorf("search the open pull requests: %s", cause(err))
	}
	return out, nil
}
