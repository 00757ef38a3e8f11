package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus"
)

// ErrBranchHeadMoved means the branch was not updated because its head is no longer the one the
// user saw when they chose to update it.
var ErrBranchHeadMoved = errors.New("the head moved since updating the branch was chosen")

// UpdateBranchRefusedError is GitHub refusing to update the branch for a reason the user can act
// on (a conflict with the base, nothing to update, a closed pull request).
type UpdateBranchRefusedError struct{ Reason string }

func (e *UpdateBranchRefusedError) Error() string { return "update refused: " + e.Reason }

// UpdateBranch brings the pull request's branch up to date with its base, as GitHub's "Update
// branch" button does (a merge of the base into the head), only if the head is still
// expectedHeadSHA: REST PUT .../pulls/{n}/update-branch with expected_head_sha (go-github's
// PullRequests.UpdateBranch). GitHub answers 202 Accepted and does the merge in the background;
// the next snapshot shows the new head, and the workflows run again on it. The request is sent
// once, never retried (it is not idempotent):
//
//   - 202 (or 200) → nil;
//   - 422 naming the expected head → ErrBranchHeadMoved;
//   - any other 422 → *UpdateBranchRefusedError with GitHub's reason;
//   - anything else (401, 403, 404, a rate limit, a 5xx) is returned as is.
//
// It never merges the pull request, never closes it and never deletes a branch.
func (c *Client) UpdateBranch(ctx context.Context, ref prstatus.PRRef, expectedHeadSHA string) error {
	what := fmt.Sprintf("update the branch of %s", ref)
	if err := checkRef(ref); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	sha := strings.ToLower(strings.TrimSpace(expectedHeadSHA))
	if sha == "" {
		return fmt.Errorf("%s: refusing to update without the head commit the user saw", what)
	}
	owner, repo := repoArgs(ref)
	_, resp, err := c.rest.PullRequests.UpdateBranch(ctx, owner, repo, ref.Number, &github.PullRequestBranchUpdateOptions{ExpectedHeadSHA: &sha})
	err = c.restError(ctx, resp, err)
	var st *RESTStatusError
	switch {
	case err == nil:
	case errors.As(err, &st) && st.Status == http.StatusAccepted:
	case errors.As(err, &st) && st.Status == http.StatusUnprocessableEntity && headMismatch(st.Message):
		return fmt.Errorf("%s: %w (GitHub: %s)", what, ErrBranchHeadMoved, refusal(st))
	case errors.As(err, &st) && st.Status == http.StatusUnprocessableEntity:
		return fmt.Errorf("%s: %w", what, &UpdateBranchRefusedError{Reason: refusal(st)})
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
	c.log.InfoContext(ctx, "asked GitHub to update the branch", "pr", ref.String(), "head", sha)
	return nil
}

// headMismatch reports whether GitHub's 422 says the head is not the expected one ("expected head
// sha didn't match current head ref").
func headMismatch(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "expected head sha") || strings.Contains(m, "expected_head_sha")
}
