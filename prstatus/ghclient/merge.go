package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Merge merges the pull request, only at the expected head: REST PUT .../pulls/{n}/merge with
// merge_method and sha (go-github's PullRequests.Merge). It sends that request once, never more:
//
//   - 200 → the merge commit's SHA;
//   - 405 (not mergeable, branch policy) and 422 → *MergeRefusedError with GitHub's reason;
//   - 409 (the head is not ExpectedHeadSHA) → ErrHeadMoved;
//   - a 5xx, a dropped connection or a timeout: the answer is lost, not the question. After a
//     short pause the pull request is read again (merged, mergeCommit, headRefOid): merged at the
//     expected head is success (Recovered), otherwise the original error is returned;
//   - anything else (401, 403, 404, a rate limit) is returned as is, for the user to decide.
//
// Merge never closes a pull request and never deletes a branch (GitHub's delete-branch-on-merge
// setting, if a repository has it, is GitHub's doing).
func (c *Client) Merge(ctx context.Context, ref prstatus.PRRef, m MergeRequest) (MergeResult, error) {
	what := fmt.Sprintf("merge %s", ref)
	in, err := m.body(ref)
	if err != nil {
		return MergeResult{}, fmt.Errorf("%s: %w", what, err)
	}
	owner, repo := repoArgs(ref)
	opts := &github.PullRequestOptions{MergeMethod: in.MergeMethod, SHA: in.SHA}
	out, resp, err := c.rest.PullRequests.Merge(ctx, owner, repo, ref.Number, "", opts)
	err = c.restError(ctx, resp, err)
	var st *RESTStatusError
	switch {
	case err == nil:
	case errors.As(err, &st) && (st.Status == http.StatusMethodNotAllowed || st.Status == http.StatusUnprocessableEntity):
		return MergeResult{}, fmt.Errorf("%s: %w", what, &MergeRefusedError{Reason: refusal(st)})
	case errors.As(err, &st) && st.Status == http.StatusConflict:
		return MergeResult{}, fmt.Errorf("%s: %w (GitHub: %s)", what, ErrHeadMoved, refusal(st))
	case errors.Is(err, ErrUnavailable) && ctx.Err() == nil:
		return c.mergeOutcome(ctx, ref, in.SHA, what, err)
	default:
		return MergeResult{}, fmt.Errorf("%s: %w", what, err)
	}
	if !out.GetMerged() {
		return MergeResult{}, fmt.Errorf("%s: %w", what, &MergeRefusedError{Reason: oneLine(c.transport.token.scrub(out.GetMessage()))})
	}
	c.log.InfoContext(ctx, "merged pull request", "pr", ref.String(), "method", in.MergeMethod, "head", in.SHA, "sha", out.GetSHA())
	return MergeResult{SHA: out.GetSHA()}, nil
}

// mergeBody is the merge request: what go-github sends as merge_method and sha.
type mergeBody struct {
	MergeMethod string
	SHA         string
}

// body validates the request: a known method ("" is GitHub's default, merge) and a head SHA,
// without which there is no merge at all.
func (m MergeRequest) body(ref prstatus.PRRef) (mergeBody, error) {
	if err := checkRef(ref); err != nil {
		return mergeBody{}, err
	}
	method := strings.ToLower(strings.TrimSpace(m.Method))
	switch method {
	case "":
		method = "merge"
	case "merge", "squash", "rebase":
	default:
		return mergeBody{}, fmt.Errorf("unknown merge method %q (want merge, squash or rebase)", m.Method)
	}
	sha := strings.ToLower(strings.TrimSpace(m.ExpectedHeadSHA))
	if sha == "" {
		return mergeBody{}, errors.New("refusing to merge without the head commit the user approved")
	}
	if !isHexSHA(sha) {
		return mergeBody{}, fmt.Errorf("refusing to merge: %q is not a commit SHA", oneLine(m.ExpectedHeadSHA))
	}
	return mergeBody{MergeMethod: method, SHA: sha}, nil
}

// isHexSHA accepts a full SHA-1 or SHA-256 commit id.
func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdef", rune(s[i])) {
			return false
		}
	}
	return true
}

// refusal is GitHub's reason for refusing a merge, one line.
func refusal(st *RESTStatusError) string {
	if st.Message != "" {
		return st.Message
	}
	return fmt.Sprintf("HTTP %d", st.Status)
}

// mergeOutcome finds out what became of a merge whose answer was lost (cause).
func (c *Client) mergeOutcome(ctx context.Context, ref prstatus.PRRef, sha, what string, cause error) (MergeResult, error) {
	if err := c.pause(ctx); err != nil {
		return MergeResult{}, fmt.Errorf("%s: %w", what, cause)
	}
	st, err := c.readMergeState(ctx, ref)
	if err != nil {
		return MergeResult{}, fmt.Errorf("%s: %w (and the pull request could not be read again to see whether it merged: %v)", what, cause, err)
	}
	switch {
	case st.merged && strings.EqualFold(st.head, sha):
		c.log.InfoContext(ctx, "merge landed although its answer was lost", "pr", ref.String(), "head", sha, "sha", st.mergeCommit)
		return MergeResult{SHA: st.mergeCommit, Recovered: true}, nil
	case st.merged:
		return MergeResult{}, fmt.Errorf("%s: %w: the pull request was merged at %s, not at the approved head", what, ErrHeadMoved, text.ShortSHA(st.head))
	}
	return MergeResult{}, fmt.Errorf("%s: %w (the pull request is not merged)", what, cause)
}
