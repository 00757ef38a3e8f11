package ghclient

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/shurcooL/githubv4"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// Follow-up pages. The snapshot query reads the first page of every connection; a page query is
// sent only when a connection is longer than that:
//
//   - review threads: more than 100 → forward pages of 100 (250 threads cost 3 requests);
//   - check contexts: more than 100 → forward pages of 100, re-reading headRefOid with each page
//     so that a push in between cannot mix two heads' checks (the snapshot starts over once);
//   - commits: the newest 100 come with the snapshot. Older pages are read backwards only while
//     every commit read so far is a merge, because the needs-refine rule (docs/needs-refine.md) only needs
//     the newest substantive commit. Snapshot.Commits may therefore hold only the newest commits;
//     Snapshot.CommitsTotal says how many there are;
//   - reviews: only the newest 100 are read, never paged. Each reviewer's verdict comes from
//     latestOpinionatedReviews (one per reviewer, first 100 reviewers), so older reviews matter
//     only as history. Review requests likewise stop at 100.
//
// Every page query asks for rateLimit too, so Snapshot.RateLimit.Cost is the whole snapshot's cost.

// maxPages bounds the follow-up pages of one connection, whatever the server says about
// hasNextPage (GitHub lists at most 250 commits of a PR; 50 pages are 5,000 threads or checks).
const maxPages = 50

// errHeadMoved means the PR's head changed while check pages were read.
var errHeadMoved = errors.New("the pull request's head moved while its checks were read")

// threadsPageQuery reads the next page of review threads.
type threadsPageQuery struct {
	Node *struct {
		PullRequest struct {
			ReviewThreads threadConnection `graphql:"reviewThreads(first: 100, after: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// contextsPageQuery reads the next page of the head's check contexts, and the head itself.
type contextsPageQuery struct {
	Node *struct {
		PullRequest struct {
			HeadRefOid        string `graphql:"headRefOid"`
			StatusCheckRollup *struct {
				Contexts contextConnection `graphql:"contexts(first: 100, after: $cursor)"`
			} `graphql:"statusCheckRollup"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// commitsPageQuery reads the page of commits before a cursor (older commits).
type commitsPageQuery struct {
	Node *struct {
		PullRequest struct {
			Commits commitConnection `graphql:"commits(last: 100, before: $cursor)"`
		} `graphql:"... on PullRequest"`
	} `graphql:"node(id: $id)"`
	RateLimit *rateLimitNode `graphql:"rateLimit"`
}

// pager runs the follow-up queries of one snapshot and adds up their cost.
type pager struct {
	c     *Client
	id    string // the PR's node id
	rate  *rateLimitNode
	calls int
}

func (p *pager) query(ctx context.Context, what string, q any, vars map[string]any) error {
	p.calls++
	if err := p.c.gql.Query(ctx, q, vars); err != nil {
		return fmt.Errorf("read %s: %w", what, p.c.callError(err))
	}
	return nil
}

func (p *pager) addCost(r *rateLimitNode) {
	if r == nil {
		return
	}
	if p.rate == nil {
		p.rate = &rateLimitNode{}
	}
	cost := p.rate.Cost + r.Cost
	*p.rate = *r
	p.rate.Cost = cost
}

// moreThreads appends every page of threads after first.
func (p *pager) moreThreads(ctx context.Context, first threadConnection) ([]*threadNode, error) {
	nodes, info := first.Nodes, first.PageInfo
	for page := 0; info.HasNextPage && info.EndCursor != nil; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("read review threads: more than %d pages", maxPages)
		}
		var q threadsPageQuery
		vars := map[string]any{"id": githubv4.ID(p.id), "cursor": githubv4.String(*info.EndCursor)}
		if err := p.query(ctx, "review threads", &q, vars); err != nil {
			return nil, err
		}
		p.addCost(q.RateLimit)
		if q.Node == nil {
			return nil, fmt.Errorf("read review threads: %w", ErrNotFound)
		}
		conn := q.Node.PullRequest.ReviewThreads
		if conn.PageInfo.EndCursor != nil && *conn.PageInfo.EndCursor == *info.EndCursor {
			break // a server repeating its cursor would loop forever
		}
		nodes, info = append(nodes, conn.Nodes...), conn.PageInfo
	}
	return nodes, nil
}

// moreContexts appends every page of check contexts after first; head is the snapshot's head.
func (p *pager) moreContexts(ctx context.Context, first contextConnection, head string, number int) ([]*contextNode, error) {
	nodes, info := first.Nodes, first.PageInfo
	for page := 0; info.HasNextPage && info.EndCursor != nil; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("read checks: more than %d pages", maxPages)
		}
		var q contextsPageQuery
		vars := map[string]any{
			"id": githubv4.ID(p.id), "cursor": githubv4.String(*info.EndCursor), "number": githubv4.Int(number),
		}
		if err := p.query(ctx, "checks", &q, vars); err != nil {
			return nil, err
		}
		p.addCost(q.RateLimit)
		if q.Node == nil {
			return nil, fmt.Errorf("read checks: %w", ErrNotFound)
		}
		if q.Node.PullRequest.HeadRefOid != head || q.Node.PullRequest.StatusCheckRollup == nil {
			return nil, errHeadMoved
		}
		conn := q.Node.PullRequest.StatusCheckRollup.Contexts
		if conn.PageInfo.EndCursor != nil && *conn.PageInfo.EndCursor == *info.EndCursor {
			break
		}
		nodes, info = append(nodes, conn.Nodes...), conn.PageInfo
	}
	return nodes, nil
}

// olderCommits prepends older pages of commits while none read so far is substantive.
func (p *pager) olderCommits(ctx context.Context, newest commitConnection) ([]commitNode, error) {
	commits := commitNodes(newest)
	info := newest.PageInfo
	for page := 0; !anySubstantive(commits) && info.HasPreviousPage && info.StartCursor != nil; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("read commits: more than %d pages", maxPages)
		}
		var q commitsPageQuery
		vars := map[string]any{"id": githubv4.ID(p.id), "cursor": githubv4.String(*info.StartCursor)}
		if err := p.query(ctx, "commits", &q, vars); err != nil {
			return nil, err
		}
		p.addCost(q.RateLimit)
		if q.Node == nil {
			return nil, fmt.Errorf("read commits: %w", ErrNotFound)
		}
		conn := q.Node.PullRequest.Commits
		if conn.PageInfo.StartCursor != nil && *conn.PageInfo.StartCursor == *info.StartCursor {
			break
		}
		commits, info = append(commitNodes(conn), commits...), conn.PageInfo
	}
	return commits, nil
}

func commitNodes(conn commitConnection) []commitNode {
	out := make([]commitNode, 0, len(conn.Nodes))
	for _, n := range conn.Nodes {
		if n != nil {
			out = append(out, n.Commit)
		}
	}
	return out
}

// mergeHeadline matches the headlines git and GitHub give merge commits (docs/needs-refine.md).
var mergeHeadline = regexp.MustCompile(`^Merge (branch|remote-tracking|pull request)\b`)

// isMerge reports whether a commit is a merge: more than one parent, or a merge headline. The
// headline is the sanitised one, as Derive sees it.
func isMerge(parents int, headline string) bool {
	return parents > 1 || mergeHeadline.MatchString(headline)
}

func anySubstantive(commits []commitNode) bool {
	for _, c := range commits {
		if !isMerge(c.Parents.TotalCount, sanitize.Text(c.MessageHeadline)) {
			return true
		}
	}
	return false
}
