package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Merge merges the pull request, only at the expected head: REST PUT .../pulls/{n}/merge with
// merge_method and sha. It sends that request once, never more:
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
	resp, err := c.restDo(ctx, http.MethodPut, pullPath(ref)+"/merge", in)
	if err != nil {
		if errors.Is(err, ErrUnavailable) && ctx.Err() == nil {
			return c.mergeOutcome(ctx, ref, in.SHA, what, err)
		}
		return MergeResult{}, fmt.Errorf("%s: %w", what, err)
	}
	switch resp.status {
	case http.StatusOK:
		var out struct {
			SHA     string `json:"sha"`
			Merged  bool   `json:"merged"`
			Message string `json:"message"`
		}
		if err := decodeJSON(resp, &out); err != nil {
			return c.mergeOutcome(ctx, ref, in.SHA, what, err)
		}
		if !out.Merged {
			return MergeResult{}, fmt.Errorf("%s: %w", what, &MergeRefusedError{Reason: oneLine(c.transport.token.scrub(out.Message))})
		}
		c.log.InfoContext(ctx, "merged pull request", "pr", ref.String(), "method", in.MergeMethod, "head", in.SHA, "sha", out.SHA)
		return MergeResult{SHA: out.SHA}, nil
	case http.StatusMethodNotAllowed, http.StatusUnprocessableEntity:
		return MergeResult{}, fmt.Errorf("%s: %w", what, &MergeRefusedError{Reason: c.refusal(resp)})
	case http.StatusConflict:
		return MergeResult{}, fmt.Errorf("%s: %w (GitHub: %s)", what, ErrHeadMoved, c.refusal(resp))
	}
	return MergeResult{}, fmt.Errorf("%s: %w", what, c.statusErr(resp))
}

// mergeBody is the merge request.
type mergeBody struct {
	MergeMethod string `json:"merge_method"`
	SHA         string `json:"sha"`
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
func (c *Client) refusal(resp restResponse) string {
	if msg := c.restMessage(resp.body); msg != "" {
		return msg
	}
	return fmt.Sprintf("HTTP %d", resp.status)
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
		return MergeResult{}, fmt.Errorf("%s: %w: the pull request was merged at %s, not at the approved head", what, ErrHeadMoved, shortSHA(st.head))
	}
	return MergeResult{}, fmt.Errorf("%s: %w (the pull request is not merged)", what, cause)
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}
