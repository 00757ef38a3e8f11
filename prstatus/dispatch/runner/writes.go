package runner

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// writer makes the run's writes through go-github's issues API (which serves pull requests too),
// the source's go-github: prmonitor's transport authenticates, honours rate limits (go-github's own
// checks are off), classifies errors and keeps the token out of them.
type writer struct {
	gh   *github.Client
	repo dispatch.RepoRef
}

// apply makes one write. Removing a label that is already gone counts as done.
func (w *writer) apply(ctx context.Context, m dispatch.Mutation) error {
	var err error
	switch m.Action {
	case dispatch.ActionRemoveLabel:
		_, err = w.gh.Issues.RemoveLabelForIssue(ctx, w.repo.Owner, w.repo.Name, m.Number, url.PathEscape(m.Value))
		if errors.Is(err, ghclient.ErrNotFound) {
			err = nil
		}
	case dispatch.ActionAddLabel:
		_, _, err = w.gh.Issues.AddLabelsToIssue(ctx, w.repo.Owner, w.repo.Name, m.Number, []string{m.Value})
	case dispatch.ActionAssign:
		_, _, err = w.gh.Issues.AddAssignees(ctx, w.repo.Owner, w.repo.Name, m.Number, []string{m.Value})
	default:
		return fmt.Errorf("unknown write %q", m.Action)
	}
	return restError(err)
}

// restError unwraps net/http's *url.Error (its "POST URL:" prefix adds nothing: the caller names
// the write) and gives go-github's own rate-limit errors prmonitor's sentinel.
func restError(err error) error {
	if err == nil {
		return nil
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &abuse) {
		return fmt.Errorf("%w: %v", ghclient.ErrRateLimited, err)
	}
	return err
}
