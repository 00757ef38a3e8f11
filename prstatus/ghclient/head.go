package ghclient

import (
	"context"
	"fmt"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus"
)

// HeadSHA re-reads the pull request's head commit with one small GraphQL query. Like every query
// it is retried by the transport past 5xx answers, dropped connections and short rate limits.
func (c *Client) HeadSHA(ctx context.Context, ref prstatus.PRRef) (string, error) {
	if err := checkRef(ref); err != nil {
		return "", fmt.Errorf("head of %s: %w", ref, err)
	}
	var q headQuery
	if err := c.gql.Query(ctx, &q, refVars(ref)); err != nil {
		return "", fmt.Errorf("head of %s: %w", ref, c.callError(err))
	}
	if q.Repository == nil || q.Repository.PullRequest == nil {
		return "", fmt.Errorf("head of %s: %w: no such pull request", ref, ErrNotFound)
	}
	return q.Repository.PullRequest.HeadRefOid, nil
}

// mergeState is what the pull request says about a merge.
type mergeState struct {
	merged      bool
	mergeCommit string
	head        string
}

// readMergeState reads merged, mergeCommit and headRefOid in one query.
func (c *Client) readMergeState(ctx context.Context, ref prstatus.PRRef) (mergeState, error) {
	var q mergeStateQuery
	if err := c.gql.Query(ctx, &q, refVars(ref)); err != nil {
		return mergeState{}, c.callError(err)
	}
	if q.Repository == nil || q.Repository.PullRequest == nil {
		return mergeState{}, fmt.Errorf("%w: no such pull request", ErrNotFound)
	}
	pr := q.Repository.PullRequest
	st := mergeState{merged: pr.Merged, head: pr.HeadRefOid}
	if pr.MergeCommit != nil {
		st.mergeCommit = pr.MergeCommit.Oid
	}
	return st, nil
}

// refVars are the variables of a query about one pull request.
func refVars(ref prstatus.PRRef) map[string]any {
	return map[string]any{
		"owner":  githubv4.String(ref.Owner),
		"name":   githubv4.String(ref.Repo),
		"number": githubv4.Int(ref.Number),
	}
}
