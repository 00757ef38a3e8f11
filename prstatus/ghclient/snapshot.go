package ghclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Snapshot reads everything the monitor needs about one pull request. For an ordinary PR that is
// exactly one GraphQL request; longer connections add follow-up pages (see pages.go).
//
// A missing repository or pull request, or one the token cannot see, gives ErrNotFound; a
// refused token ErrUnauthorized; a network failure or GitHub outage (after retries)
// ErrUnavailable; a rate limit longer than the configured patience a *RateLimitError. Any other
// GraphQL error fails the snapshot too: partial data is never returned as if it were whole.
func (c *Client) Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	if ref.Owner == "" || ref.Repo == "" || ref.Number <= 0 || ref.Number > 1<<31-1 {
		return nil, fmt.Errorf("snapshot: %w: %q", prstatus.ErrBadRef, ref.String())
	}
	// A push between the first page of checks and the next one would mix two heads' checks:
	// start over once, then give up until the next poll.
	for try := 1; ; try++ {
		s, err := c.snapshot(ctx, ref)
		if errors.Is(err, errHeadMoved) {
			if try < 2 {
				c.log.DebugContext(ctx, "head moved while reading checks; reading the snapshot again", "pr", ref.String())
				continue
			}
			return nil, fmt.Errorf("snapshot %s: %w: %w", ref, ErrUnavailable, err)
		}
		if err != nil {
			return nil, fmt.Errorf("snapshot %s: %w", ref, err)
		}
		return s, nil
	}
}

func (c *Client) snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	var q snapshotQuery
	vars := map[string]any{
		"owner":  githubv4.String(ref.Owner),
		"name":   githubv4.String(ref.Repo),
		"number": githubv4.Int(ref.Number),
	}
	if err := c.gql.Query(ctx, &q, vars); err != nil {
		return nil, c.callError(err)
	}
	if q.Repository == nil || q.Repository.PullRequest == nil {
		return nil, fmt.Errorf("%w: no pull request %s", ErrNotFound, ref)
	}
	pr := q.Repository.PullRequest
	p := &pager{c: c, id: pr.ID}
	p.addCost(q.RateLimit)

	threads, err := p.moreThreads(ctx, pr.ReviewThreads)
	if err != nil {
		return nil, err
	}
	var contexts []*contextNode
	if pr.StatusCheckRollup != nil {
		contexts, err = p.moreContexts(ctx, pr.StatusCheckRollup.Contexts, pr.HeadRefOid, ref.Number)
		if err != nil {
			return nil, err
		}
	}
	commits, err := p.olderCommits(ctx, pr.Commits)
	if err != nil {
		return nil, err
	}
	if p.calls > 0 {
		c.log.DebugContext(ctx, "snapshot needed follow-up pages", "pr", ref.String(), "pages", p.calls)
	}

	in := c.in
	requests, codeOwners := in.toReviewRequests(pr)
	s := &prstatus.Snapshot{
		Ref:               ref,
		ID:                pr.ID,
		Title:             in.text(pr.Title),
		URL:               in.text(pr.URL),
		Body:              in.text(pr.Body),
		Author:            in.toActor(pr.Author),
		AuthorAssociation: prstatus.Association(pr.AuthorAssociation),
		State:             prstatus.PRState(pr.State),
		Merged:            pr.Merged,
		Closed:            pr.Closed,
		IsDraft:           pr.IsDraft,
		HeadRef:           in.text(pr.HeadRefName),
		HeadOID:           pr.HeadRefOid,
		BaseRef:           in.text(pr.BaseRefName),
		Mergeable:         prstatus.Mergeable(pr.Mergeable),
		MergeStateStatus:  pr.MergeStateStatus,
		ReviewDecision:    deref(pr.ReviewDecision),
		UpdatedAt:         pr.UpdatedAt.UTC(),
		CreatedAt:         pr.CreatedAt.UTC(),
		ReviewRequests:    requests,
		CodeOwnerRequests: codeOwners,
		Threads:           in.toThreads(threads),
		Commits:           in.toCommits(commits),
		CommitsTotal:      pr.Commits.TotalCount,
		Checks:            in.toChecks(contexts),
		Viewer:            in.text(q.Viewer.Login),
		RateLimit:         toRateLimit(p.rate),

		Rules:              in.toBaseRules(pr.BaseRef),
		AutoMergeAllowed:   q.Repository.AutoMergeAllowed,
		AutoMerge:          in.toAutoMerge(pr),
		MergeQueueRequired: pr.IsMergeQueueEnabled,
		InMergeQueue:       pr.IsInMergeQueue,
	}
	if pr.BaseRef != nil && pr.BaseRef.Target != nil {
		s.BaseOID = pr.BaseRef.Target.Oid
		if r := pr.BaseRef.Target.Commit.StatusCheckRollup; r != nil {
			s.BaseChecks = in.toChecks(r.Contexts.Nodes)
		}
	}
	if pr.BaseRef != nil && pr.BaseRef.AssociatedPullRequests != nil {
		for _, n := range pr.BaseRef.AssociatedPullRequests.Nodes {
			if n != nil && n.Number > 0 && n.Number != pr.Number {
				s.StackedOn = &prstatus.StackBase{Number: n.Number, HeadOID: n.HeadRefOid}
				break
			}
		}
	}
	s.LatestOpinionatedReviews = []prstatus.Review{}
	if pr.LatestOpinionatedReviews != nil {
		s.LatestOpinionatedReviews = in.toReviews(pr.LatestOpinionatedReviews.Nodes)
	}
	s.Reviews = []prstatus.Review{}
	if pr.Reviews != nil {
		s.Reviews = in.toReviews(pr.Reviews.Nodes)
	}
	return s, nil
}
