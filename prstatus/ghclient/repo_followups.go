package ghclient

import (
	"context"
	"fmt"
	"slices"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
)

// MaxCommentPages bounds the older pages of conversation comments OlderComments reads for one
// pull request: 30 pages of 100 past the newest 100 (1 point each). A pull request with more is
// marked CommentsCut, and the rules leave it to a human instead of deciding on part of it.
const MaxCommentPages = 30

// OlderComments reads the older conversation comments of the given pull requests, newest page
// first, until none is left or MaxCommentPages were read: the user's self-reviews and fix plans
// are found however many comments others posted after them.
func (c *Client) OlderComments(ctx context.Context, s *dispatch.Snapshot, numbers []int, cost *RepoCost) error {
	for i := range s.PRs {
		pr := &s.PRs[i]
		if !slices.Contains(numbers, pr.Number()) || pr.CommentsBefore == "" {
			continue
		}
		for page := 0; pr.CommentsBefore != ""; page++ {
			if page == MaxCommentPages {
				pr.CommentsCut = true
				break
			}
			var q olderCommentsQuery
			vars := map[string]any{"id": githubv4.ID(pr.ID), "cursor": githubv4.String(pr.CommentsBefore)}
			if err := c.gql.Query(ctx, &q, vars); err != nil {
				return fmt.Errorf("read older comments of #%d: %w", pr.Number(), c.callError(err))
			}
			cost.add(q.RateLimit)
			pr.CommentsBefore = ""
			if q.Node == nil {
				break
			}
			conn := q.Node.PullRequest.Comments
			pr.Comments = append(c.in.mergeComments(nil, conn.Nodes), pr.Comments...)
			if conn.PageInfo.HasPreviousPage && conn.PageInfo.StartCursor != nil {
				pr.CommentsBefore = *conn.PageInfo.StartCursor
			}
		}
	}
	return nil
}

// LockEvents re-reads the label events (applied and removed, the newest 100 of each pull request)
// of the given pull requests, by number, in one request per 100.
func (c *Client) LockEvents(ctx context.Context, s *dispatch.Snapshot, numbers []int, cost *RepoCost) (map[int][]dispatch.LabelEvent, error) {
	ids := map[string]int{}
	var list []string
	for _, pr := range s.PRs {
		if slices.Contains(numbers, pr.Number()) {
			ids[pr.ID] = pr.Number()
			list = append(list, pr.ID)
		}
	}
	out := map[int][]dispatch.LabelEvent{}
	for batch := range slices.Chunk(list, pageSize) {
		gids := make([]githubv4.ID, len(batch))
		for i, id := range batch {
			gids[i] = githubv4.ID(id)
		}
		var q lockEventsQuery
		if err := c.gql.Query(ctx, &q, map[string]any{"ids": gids}); err != nil {
			return nil, fmt.Errorf("re-read the lock labels: %w", c.callError(err))
		}
		cost.add(q.RateLimit)
		for _, n := range q.Nodes {
			if n != nil {
				out[n.PullRequest.Number] = c.in.labelEvents([]dispatch.LabelEvent{}, n.PullRequest.TimelineItems.Nodes)
			}
		}
	}
	return out, nil
}
