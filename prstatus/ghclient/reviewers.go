package ghclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus"
)

// RequestReviews asks reviewers to review (again): REST POST .../pulls/{n}/requested_reviewers,
// go-github's RequestReviewers. Users and bots go by login as REST spells them
// ("copilot-pull-request-reviewer[bot]"), teams as "org/slug" (GitHub takes the slug; the team
// belongs to the repository's organisation). Asking again is harmless, so 5xx answers, dropped
// connections and short rate limits are retried with backoff (Client.write). A 422 (the reviewer
// is the author, or not a collaborator) comes back as one line with GitHub's reason. No
// reviewers: nothing to do, no request.
func (c *Client) RequestReviews(ctx context.Context, ref prstatus.PRRef, reviewers []string) error {
	what := fmt.Sprintf("request reviews on %s", ref)
	if err := checkRef(ref); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	in, names, err := splitReviewers(reviewers)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(names) == 0 {
		return nil
	}
	what = fmt.Sprintf("request reviews on %s from %s", ref, strings.Join(names, ", "))
	owner, repo := repoArgs(ref)
	return c.write(ctx, write{
		what: what,
		send: func(ctx context.Context, _ int) error {
			_, resp, err := c.rest.PullRequests.RequestReviewers(ctx, owner, repo, ref.Number, in)
			return c.restError(ctx, resp, err)
		},
	})
}

// splitReviewers sorts logins from "org/slug" teams, drops blanks and repeats, and refuses what
// is neither. names are the reviewers kept, as given.
func splitReviewers(reviewers []string) (out github.ReviewersRequest, names []string, err error) {
	seen := map[string]bool{}
	for _, r := range reviewers {
		r = strings.TrimPrefix(strings.TrimSpace(r), "@")
		if r == "" || seen[strings.ToLower(r)] {
			continue
		}
		seen[strings.ToLower(r)] = true
		org, slug, team := strings.Cut(r, "/")
		switch {
		case !team:
			out.Reviewers = append(out.Reviewers, r)
		case org == "" || slug == "" || strings.Contains(slug, "/"):
			return github.ReviewersRequest{}, nil, fmt.Errorf("%q is neither a login nor a team (org/slug)", oneLine(r))
		default:
			out.TeamReviewers = append(out.TeamReviewers, slug)
		}
		names = append(names, oneLine(r))
	}
	return out, names, nil
}
