package monitorwf

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// memoOwner is the memo key holding a monitor's owner (shown in Temporal's UI beside the search
// attribute).
const memoOwner = "owner"

// ErrUnknownMonitor means no monitor with that id, or one that belongs to someone else (the two are
// told apart to no one).
var ErrUnknownMonitor = errors.New("unknown monitor")

// NormalizeOwner is a login as monitors keyed by a login (Owner.Key) record it: lower-case
// (GitHub's logins are case-insensitive).
func NormalizeOwner(login string) string { return strings.ToLower(strings.TrimSpace(login)) }

// Found is one of a user's monitors as Temporal describes it.
type Found struct {
	ID      string
	Running bool
	// Run is the first run id of its current chain of runs (Reply.Run).
	Run string
	// Legacy: the monitor is keyed by its owner's login (started before owners had ids) and not
	// adopted yet; the caller adopts it (Adopt).
	Legacy bool
}

// Owned describes monitor id for owner: ErrUnknownMonitor when there is none or it is someone
// else's (Owner.owns). A monitor that ended (stopped, merged) is found, not running, until
// Temporal's retention drops it.
func Owned(ctx context.Context, c client.Client, id string, owner Owner) (Found, error) {
	d, err := c.DescribeWorkflow(ctx, id, "")
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
		return Found{}, ErrUnknownMonitor
	case err != nil:
		return Found{}, fmt.Errorf("monitor %s: %w", id, err)
	}
	if d.WorkflowType.Name != WorkflowName {
		return Found{}, ErrUnknownMonitor
	}
	got, _ := d.TypedSearchAttributes.GetKeyword(ownerKey)
	if !owner.owns(got) {
		return Found{}, ErrUnknownMonitor
	}
	running := d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	return Found{ID: id, Running: running, Run: d.RawResponse.GetWorkflowExecutionInfo().GetFirstRunId(),
		Legacy: !IsIDKey(got) && owner.ID > 0}, nil
}

// Adopt records owner's GitHub user id on monitor id, a running monitor keyed by owner's login
// (Found.Legacy): from then on it is owned by the id (its Params, its search attribute). The
// workflow takes it only from a login-keyed monitor of that very login; a monitor gone meanwhile
// is no error.
func Adopt(ctx context.Context, c client.Client, id string, owner Owner) error {
	if owner.ID <= 0 {
		return nil
	}
	err := c.SignalWorkflow(ctx, id, "", SignalAdopt, owner)
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		return fmt.Errorf("monitor %s: adopt its owner's id: %w", id, err)
	}
	return nil
}

// ListQuery says which of a user's monitors to list.
type ListQuery struct {
	Owner Owner
	// Waiting lists only the running monitors waiting on their user or agent.
	Waiting bool
	// Max bounds the ids returned (at most MaxListed).
	Max int
}

// MaxListed bounds one listing.
const MaxListed = 1000

// visibilityQuery is q as a visibility query ("" when it can match nothing).
func (q ListQuery) visibilityQuery() string {
	// An id key is digits; a login is letters, digits and hyphens (anything else matches nothing,
	// and nothing else reaches the query).
	keys := []string{}
	if q.Owner.ID > 0 {
		keys = append(keys, "'"+q.Owner.Key()+"'")
	}
	if login := q.Owner.legacyKey(); login != "" && ghclient.ValidLogin(login) {
		keys = append(keys, "'"+login+"'")
	}
	if len(keys) == 0 {
		return ""
	}
	query := fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running' AND %s IN (%s)", WorkflowName, SearchAttributeOwner, strings.Join(keys, ", "))
	if q.Waiting {
		query += fmt.Sprintf(" AND %s IN ('%s', '%s')", SearchAttributeWaitingOn, WaitingOnUser, WaitingOnAgent)
	}
	return query
}

// Count is how many of owner's running monitors q matches.
func Count(ctx context.Context, c client.Client, namespace string, q ListQuery) (int, error) {
	query := q.visibilityQuery()
	if query == "" {
		return 0, nil
	}
	resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
	if err != nil {
		return 0, fmt.Errorf("count the monitors: %w", err)
	}
	return int(resp.GetCount()), nil
}

// List returns the ids of owner's running monitors (Temporal's visibility, which trails the
// workflows by a moment), sorted by id.
func List(ctx context.Context, c client.Client, namespace string, q ListQuery) (ids []string, more bool, err error) {
	query := q.visibilityQuery()
	if query == "" {
		return nil, false, nil
	}
	limit := q.Max
	if limit <= 0 || limit > MaxListed {
		limit = MaxListed
	}
	var token []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: namespace, Query: query,
			PageSize: int32(min(limit-len(ids)+1, 1000)), NextPageToken: token})
		if err != nil {
			return nil, false, fmt.Errorf("list the monitors: %w", err)
		}
		for _, e := range resp.Executions {
			if len(ids) == limit {
				return sortedIDs(ids), true, nil
			}
			ids = append(ids, e.GetExecution().GetWorkflowId())
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return sortedIDs(ids), false, nil
		}
	}
}

func sortedIDs(ids []string) []string {
	slices.Sort(ids)
	return ids
}

// CheckSearchAttributes says whether namespace knows prmonitor's search attributes; a worker or a
// front end refuses to start without them (a monitor could not be started, nor found by its owner).
func CheckSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	query := fmt.Sprintf("%s = 'x' AND %s = 'x'", SearchAttributeOwner, SearchAttributeWaitingOn)
	_, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
	var invalid *serviceerror.InvalidArgument
	if errors.As(err, &invalid) {
		return fmt.Errorf("the Temporal namespace %q does not know prmonitor's search attributes %s (Keyword); register them (docs/deploy.md): %w",
			namespace, strings.Join(SearchAttributes, " and "), err)
	}
	if err != nil {
		return fmt.Errorf("check the namespace's search attributes: %w", err)
	}
	return nil
}
