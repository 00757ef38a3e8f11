package ghclient

import (
	"context"
	"fmt"

	"github.com/prmonitor/prmonitor/prstatus"
)

// AskMergeability asks GitHub to compute a pull request's mergeability: GitHub computes it lazily,
// and a REST GET of the pull request starts the computation when it has not been done
// (https://docs.github.com/rest/pulls/pulls#get-a-pull-request: "If the value is null, then
// GitHub has started a background job to compute the mergeability").
// The answer's mergeable is returned as GraphQL spells it (UNKNOWN while still computing: read
// again a few seconds later). One REST request (go-github's PullRequests.Get), retried like every
// GET; it reads nothing but mergeable, nothing the pinned API version removed.
func (c *Client) AskMergeability(ctx context.Context, ref prstatus.PRRef) (prstatus.Mergeable, error) {
	if err := checkRef(ref); err != nil {
		return "", fmt.Errorf("ask for the mergeability of %s: %w", ref, err)
	}
	owner, repo := repoArgs(ref)
	pr, resp, err := c.rest.PullRequests.Get(ctx, owner, repo, ref.Number)
	if err := c.restError(ctx, resp, err); err != nil {
		return "", fmt.Errorf("ask for the mergeability of %s: %w", ref, err)
	}
	switch m := pr.Mergeable; {
	case m == nil:
		return prstatus.MergeableUnknown, nil
	case *m:
		return prstatus.MergeableYes, nil
	}
	return prstatus.MergeableConflict, nil
}
