package ghclient

import (
	"context"
	"fmt"
	"slices"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/dispatch"
)

// maxRepoPages bounds the pages of open pull requests one read follows (5,000 pull requests).
const maxRepoPages = 100

// RepoCost is what the dispatcher's reads cost: GraphQL requests, and the points GitHub charged.
type RepoCost struct {
	Requests int `json:"graphql_requests"`
	Points   int `json:"graphql_points"`
}

func (c *RepoCost) add(r *rateLimitNode) {
	c.Requests++
	if r != nil {
		c.Points += r.Cost
	}
}

// RepoSnapshot reads every open pull request of a repository for the dispatcher: one request per
// 50 pull requests, plus one per further 100 review threads of a pull request that has over 100.
// The replies of review threads and the open issues are left out: ThreadReplies and
// UnassignedIssues read them when the rules ask. A missing repository is ErrNotFound.
func (c *Client) RepoSnapshot(ctx context.Context, repo dispatch.RepoRef, cost *RepoCost) (*dispatch.Snapshot, error) {
	s := &dispatch.Snapshot{Repo: repo, PRs: []dispatch.PR{}}
	var cursor *githubv4.String
	for page := 0; ; page++ {
		if page == maxRepoPages {
			return nil, fmt.Errorf("read %s: more than %d pages of open pull requests", repo, maxRepoPages)
		}
		var q repoQuery
		vars := map[string]any{"owner": githubv4.String(repo.Owner), "name": githubv4.String(repo.Name), "cursor": cursor}
		if err := c.gql.Query(ctx, &q, vars); err != nil {
			return nil, fmt.Errorf("read the open pull requests of %s: %w", repo, c.callError(err))
		}
		cost.add(q.RateLimit)
		if q.Repository == nil {
			return nil, fmt.Errorf("%w: no repository %s", ErrNotFound, repo)
		}
		s.Viewer = c.in.text(q.Viewer.Login)
		for _, n := range q.Repository.PullRequests.Nodes {
			if n == nil {
				continue
			}
			pr := c.in.toDispatchPR(repo, n)
			if n.ReviewThreads.PageInfo.HasNextPage {
				more, err := c.moreThreadStates(ctx, n.ID, n.ReviewThreads.PageInfo.EndCursor, cost)
				if err != nil {
					return nil, err
				}
				pr.Threads = append(pr.Threads, more...)
			}
			s.PRs = append(s.PRs, pr)
		}
		info := q.Repository.PullRequests.PageInfo
		if !info.HasNextPage || info.EndCursor == nil {
			return s, nil
		}
		cursor = githubv4.NewString(githubv4.String(*info.EndCursor))
	}
}

// moreThreadStates reads the review threads of a pull request past the first 100.
func (c *Client) moreThreadStates(ctx context.Context, prID string, after *string, cost *RepoCost) ([]prstatus.Thread, error) {
	var out []prstatus.Thread
	for page := 0; after != nil && page < maxPages; page++ {
		var q repoThreadsPageQuery
		if err := c.gql.Query(ctx, &q, map[string]any{"id": githubv4.ID(prID), "cursor": githubv4.String(*after)}); err != nil {
			return nil, fmt.Errorf("read review threads: %w", c.callError(err))
		}
		cost.add(q.RateLimit)
		if q.Node == nil {
			return out, nil
		}
		conn := q.Node.PullRequest.ReviewThreads
		out = append(out, toThreadStates(conn.Nodes)...)
		after = nil
		if conn.PageInfo.HasNextPage {
			after = conn.PageInfo.EndCursor
		}
	}
	return out, nil
}

// ThreadReplies fills in TotalComments of every unresolved thread of the given pull requests,
// 100 threads per request, and marks them ThreadRepliesLoaded.
func (c *Client) ThreadReplies(ctx context.Context, s *dispatch.Snapshot, numbers []int, cost *RepoCost) error {
	where := map[string]*prstatus.Thread{}
	var ids []string
	var prs []*dispatch.PR
	for i := range s.PRs {
		pr := &s.PRs[i]
		if !slices.Contains(numbers, pr.Number()) {
			continue
		}
		prs = append(prs, pr)
		for j := range pr.Threads {
			if t := &pr.Threads[j]; !t.IsResolved {
				where[t.ID] = t
				ids = append(ids, t.ID)
			}
		}
	}
	for batch := range slices.Chunk(ids, pageSize) {
		gids := make([]githubv4.ID, len(batch))
		for i, id := range batch {
			gids[i] = githubv4.ID(id)
		}
		var q threadRepliesQuery
		if err := c.gql.Query(ctx, &q, map[string]any{"ids": gids}); err != nil {
			return fmt.Errorf("read the replies of review threads: %w", c.callError(err))
		}
		cost.add(q.RateLimit)
		for _, n := range q.Nodes {
			if n == nil {
				continue
			}
			if t := where[n.Thread.ID]; t != nil {
				t.IsResolved = n.Thread.IsResolved
				t.TotalComments = n.Thread.Comments.TotalCount
				t.Comments = t.Comments[:0]
				for _, first := range n.Thread.Comments.Nodes {
					if first != nil {
						t.Comments = append(t.Comments, prstatus.Comment{ID: first.ID, Author: c.in.toActor(first.Author),
							AuthorAssociation: prstatus.Association(first.AuthorAssociation)})
					}
				}
			}
		}
	}
	for _, pr := range prs {
		pr.ThreadRepliesLoaded = true
	}
	return nil
}

// bugLabel is the label whose issues rule 11 takes first.
const bugLabel = "bug"

// UnassignedIssues reads open issues without an assignee that keep accepts, oldest first, into
// s.Issues: up to want labelled bug, then, when fewer were found, up to want of any label.
func (c *Client) UnassignedIssues(ctx context.Context, s *dispatch.Snapshot, want int, keep func(dispatch.Issue) bool, cost *RepoCost) error {
	bugs, err := c.unassignedIssues(ctx, s.Repo, []githubv4.String{bugLabel}, want, keep, cost)
	if err != nil {
		return err
	}
	for i := range bugs {
		bugs[i].Labels = []string{bugLabel}
	}
	s.Issues = bugs
	if len(bugs) < want {
		rest, err := c.unassignedIssues(ctx, s.Repo, nil, want, keep, cost)
		if err != nil {
			return err
		}
		s.Issues = append(s.Issues, rest...)
	}
	s.IssuesLoaded = true
	return nil
}

func (c *Client) unassignedIssues(ctx context.Context, repo dispatch.RepoRef, labels []githubv4.String, want int, keep func(dispatch.Issue) bool, cost *RepoCost) ([]dispatch.Issue, error) {
	var out []dispatch.Issue
	var cursor *githubv4.String
	for page := 0; page < maxPages && len(out) < want; page++ {
		var q issuesQuery
		vars := map[string]any{"owner": githubv4.String(repo.Owner), "name": githubv4.String(repo.Name), "labels": &labels, "cursor": cursor}
		if labels == nil {
			vars["labels"] = (*[]githubv4.String)(nil)
		}
		if err := c.gql.Query(ctx, &q, vars); err != nil {
			return nil, fmt.Errorf("read the open issues of %s: %w", repo, c.callError(err))
		}
		cost.add(q.RateLimit)
		if q.Repository == nil {
			return nil, fmt.Errorf("%w: no repository %s", ErrNotFound, repo)
		}
		for _, n := range q.Repository.Issues.Nodes {
			if n == nil || n.Assignees.TotalCount > 0 || len(out) == want {
				continue
			}
			is := dispatch.Issue{Number: n.Number, Title: c.in.text(n.Title), URL: n.URL, Labels: []string{}, Assignees: []string{},
				Author: c.in.toActor(n.Author), AuthorAssociation: prstatus.Association(n.AuthorAssociation)}
			if keep == nil || keep(is) {
				out = append(out, is)
			}
		}
		info := q.Repository.Issues.PageInfo
		if !info.HasNextPage || info.EndCursor == nil {
			break
		}
		cursor = githubv4.NewString(githubv4.String(*info.EndCursor))
	}
	return out, nil
}

func (in ingest) toDispatchPR(repo dispatch.RepoRef, n *repoPRNode) dispatch.PR {
	pr := dispatch.PR{
		Snapshot: prstatus.Snapshot{
			Ref:       prstatus.PRRef{Owner: repo.Owner, Repo: repo.Name, Number: n.Number},
			ID:        n.ID,
			URL:       n.URL,
			Author:    in.toActor(n.Author),
			State:     prstatus.StateOpen,
			IsDraft:   n.IsDraft,
			HeadRef:   in.text(n.HeadRefName),
			HeadOID:   n.HeadRefOid,
			BaseRef:   in.text(n.BaseRefName),
			Mergeable: prstatus.Mergeable(n.Mergeable),
			Reviews:   in.toReviews(n.Reviews.Nodes),
			Threads:   toThreadStates(n.ReviewThreads.Nodes),
			Checks:    []prstatus.Check{},
		},
		AuthorAssociation: prstatus.Association(n.AuthorAssociation),
		IsCrossRepository: n.IsCrossRepository,
		HeadOwner:         in.login(n.HeadRepositoryOwner),
		Labels:            []string{},
		Assignees:         []string{},
		LabelEvents:       []dispatch.LabelEvent{},
		Comments:          in.mergeComments(nil, n.Comments.Nodes),
	}
	if info := n.Comments.PageInfo; info.HasPreviousPage && info.StartCursor != nil {
		pr.CommentsBefore = *info.StartCursor
	}
	pr.LatestOpinionatedReviews = make([]prstatus.Review, 0, len(n.LatestOpinionatedReviews.Nodes))
	for _, v := range n.LatestOpinionatedReviews.Nodes {
		if v != nil {
			pr.LatestOpinionatedReviews = append(pr.LatestOpinionatedReviews, in.toReviews([]*reviewNode{{
				ID: v.ID, Author: v.Author, AuthorAssociation: v.AuthorAssociation, State: v.State, SubmittedAt: v.SubmittedAt, Commit: v.Commit,
			}})...)
		}
	}
	for _, l := range n.Labels.Nodes {
		if l != nil {
			pr.Labels = append(pr.Labels, in.text(l.Name))
		}
	}
	for _, a := range n.Assignees.Nodes {
		if a != nil {
			pr.Assignees = append(pr.Assignees, in.text(a.Login))
		}
	}
	pr.LabelEvents = in.labelEvents(pr.LabelEvents, n.TimelineItems.Nodes)
	if r := n.StatusCheckRollup; r != nil {
		pr.RollupState = r.State
		pr.Checks = in.repoChecks(r.Contexts.Nodes)
		pr.ChecksCut = r.Contexts.TotalCount > len(r.Contexts.Nodes)
	}
	return pr
}

// repoChecks converts the repository read's check contexts (isRequired unknown: it needs one
// pull request's number).
func (in ingest) repoChecks(nodes []*repoContextNode) []prstatus.Check {
	out := make([]prstatus.Check, 0, len(nodes))
	for _, n := range nodes {
		switch {
		case n == nil:
		case n.Typename == string(prstatus.KindCheckRun):
			c := prstatus.Check{Kind: prstatus.KindCheckRun, Name: in.text(n.CheckRun.Name), Status: n.CheckRun.Status, Conclusion: deref(n.CheckRun.Conclusion)}
			if n.CheckRun.DatabaseID != nil {
				c.DatabaseID = *n.CheckRun.DatabaseID
			}
			if s := n.CheckRun.CheckSuite; s != nil && s.WorkflowRun != nil && s.WorkflowRun.Workflow != nil {
				c.WorkflowName = in.text(s.WorkflowRun.Workflow.Name)
			}
			out = append(out, c)
		case n.Typename == string(prstatus.KindStatusContext):
			out = append(out, prstatus.Check{Kind: prstatus.KindStatusContext, Name: in.text(n.StatusContext.Context), State: n.StatusContext.State})
		}
	}
	return out
}

func toThreadStates(nodes []*threadStateNode) []prstatus.Thread {
	out := make([]prstatus.Thread, 0, len(nodes))
	for _, n := range nodes {
		if n != nil {
			out = append(out, prstatus.Thread{ID: n.ID, IsResolved: n.IsResolved, Comments: []prstatus.Comment{}})
		}
	}
	return out
}

// labelEvents converts timeline label events, oldest first.
func (in ingest) labelEvents(out []dispatch.LabelEvent, nodes []*labelEventNode) []dispatch.LabelEvent {
	for _, e := range nodes {
		if e == nil {
			continue
		}
		d, removed := e.LabeledEvent, false
		if e.Typename == "UnlabeledEvent" {
			d, removed = e.Unlabeled, true
		}
		if d.Label.Name == "" {
			continue
		}
		out = append(out, dispatch.LabelEvent{ID: d.ID, Label: in.text(d.Label.Name), At: d.CreatedAt.UTC(),
			Actor: in.toActor(d.Actor).Login, Removed: removed})
	}
	return out
}
