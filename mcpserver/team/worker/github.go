package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/mcpserver/team/webhook"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// GitHub returns the client to use now.
type GitHub func(ctx context.Context) (*ghclient.Client, error)

// Static is a GitHub of one client (a token from the environment).
func Static(c *ghclient.Client) GitHub {
	return func(context.Context) (*ghclient.Client, error) { return c, nil }
}

// source is monitorwf.Source and monitorwf.Searcher over the current client, within the budget.
type source struct {
	gh     GitHub
	budget *budget
}

func (s source) Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	release, err := s.budget.admit()
	if err != nil {
		return nil, err
	}
	defer release()
	c, err := s.gh(ctx)
	if err != nil {
		return nil, err
	}
	snap, err := c.Snapshot(ctx, ref)
	if snap != nil {
		s.budget.observe(snap.RateLimit)
	}
	return snap, err
}

func (s source) OpenPRs(ctx context.Context, q ghclient.OpenPRsQuery) (ghclient.OpenPRs, error) {
	release, err := s.budget.admit()
	if err != nil {
		return ghclient.OpenPRs{}, err
	}
	defer release()
	c, err := s.gh(ctx)
	if err != nil {
		return ghclient.OpenPRs{}, err
	}
	out, err := c.OpenPRs(ctx, q)
	s.budget.observe(out.RateLimit)
	return out, err
}

// notVisible: GitHub will not show this installation the repository or the commit (404, a 403
// that is no rate limit, 422 "no commit found"): asking again finds the same.
func notVisible(err error) bool {
	var rl *ghclient.RateLimitError
	var er *github.ErrorResponse
	switch {
	case err == nil, errors.As(err, &rl):
		return false
	case errors.Is(err, ghclient.ErrNotFound), errors.Is(err, ghclient.ErrForbidden):
		return true
	}
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity
}

// maxPullsPerCommit bounds the pull requests one status event pokes.
const maxPullsPerCommit = 30

// pullsForCommit lists a repository's open pull requests whose head is sha (REST: pull requests
// associated with a commit), for the webhook's status and fork check events.
func pullsForCommit(gh GitHub) webhook.PullsForCommit {
	return func(ctx context.Context, owner, repo, sha string) ([]int, error) {
		c, err := gh(ctx)
		if err != nil {
			return nil, err
		}
		prs, _, err := c.REST().PullRequests.ListPullRequestsWithCommit(ctx, owner, repo, sha, &github.ListOptions{PerPage: maxPullsPerCommit})
		if notVisible(err) {
			return nil, fmt.Errorf("%w: %w", webhook.ErrNotVisible, err)
		}
		if err != nil {
			return nil, err
		}
		var out []int
		for _, pr := range prs {
			if pr.GetState() == "open" && pr.GetHead().GetSHA() == sha {
				out = append(out, pr.GetNumber())
			}
		}
		return out, nil
	}
}
