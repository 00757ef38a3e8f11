package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// PostReply replies to a review thread through REST, at most once per reviewer comment:
//
//   - one GraphQL read of the thread's newest comments (and the token's login): a reply of ours
//     carrying a marker for this thread after the last comment of anyone else means the thread is
//     already answered, whatever round or kind that marker names, and nothing is sent (Already);
//   - one REST POST .../pulls/{n}/comments/{reply_to}/replies. The GraphQL reply mutation is never
//     used: it can land in the user's pending review, invisible until that review is submitted;
//   - when the POST fails without an answer that proves nothing happened (a 5xx, a dropped
//     connection, a timeout), the thread is read again after a backoff and the POST is repeated
//     only if the reply is not there (Recovered when it is). A rate limit is waited out and the
//     POST repeated; any other 4xx is returned at once. Attempts are bounded by the retry policy.
func (c *Client) PostReply(ctx context.Context, ref prstatus.PRRef, r ReplyRequest) (ReplyResult, error) {
	what := fmt.Sprintf("reply on %s", ref)
	want, err := r.check(ref)
	if err != nil {
		return ReplyResult{}, fmt.Errorf("%s: %w", what, err)
	}
	what = fmt.Sprintf("reply to thread %s on %s", r.ThreadID, ref)
	st, err := c.readThread(ctx, r.ThreadID)
	if err != nil {
		return ReplyResult{}, fmt.Errorf("%s: read the thread: %w", what, err)
	}
	if tc, ok := st.ourReply(want); ok {
		c.log.DebugContext(ctx, "reply already posted", "pr", ref.String(), "thread", r.ThreadID, "comment", tc.id)
		return ReplyResult{Already: true, CommentID: tc.id, URL: tc.url}, nil
	}

	path := pullPath(ref) + "/comments/" + i64(r.ReplyToID) + "/replies"
	body := map[string]string{"body": r.Body + "\n\n" + want.String()}
	for attempt := 1; ; attempt++ {
		resp, err := c.restDo(ctx, http.MethodPost, path, body)
		if err == nil {
			return c.replyPosted(what, resp)
		}
		again, werr := c.waitToRetry(ctx, what, err, attempt)
		if werr != nil {
			return ReplyResult{}, werr
		}
		if !again {
			return ReplyResult{}, fmt.Errorf("%s: %w", what, err)
		}
		if errors.Is(err, ErrRateLimited) || neverSent(err) {
			continue // GitHub did not act on it
		}
		st, rerr := c.readThread(ctx, r.ThreadID)
		if rerr != nil {
			return ReplyResult{}, fmt.Errorf("%s: %w (and the thread could not be read again to see whether the reply landed: %v)", what, err, rerr)
		}
		if tc, ok := st.ourReply(want); ok {
			c.log.InfoContext(ctx, "reply landed although its answer was lost", "pr", ref.String(), "thread", r.ThreadID, "comment", tc.id)
			return ReplyResult{CommentID: tc.id, URL: tc.url, Recovered: true}, nil
		}
	}
}

// check validates the request and returns the marker to append, normalised as a reader of the
// posted comment will parse it.
func (r ReplyRequest) check(ref prstatus.PRRef) (prstatus.Marker, error) {
	if err := checkRef(ref); err != nil {
		return prstatus.Marker{}, err
	}
	switch {
	case r.ThreadID == "":
		return prstatus.Marker{}, errors.New("no thread id")
	case r.ReplyToID <= 0:
		return prstatus.Marker{}, errors.New("no comment to reply to (ReplyToID)")
	case strings.TrimSpace(r.Body) == "":
		return prstatus.Marker{}, errors.New("empty reply")
	}
	m := r.Marker
	if m.Thread == "" {
		m.Thread = r.ThreadID
	}
	want, ok := prstatus.ParseMarker(m.String())
	if !ok || want.Thread != r.ThreadID {
		return prstatus.Marker{}, fmt.Errorf("the marker names thread %q, the reply goes to %q", m.Thread, r.ThreadID)
	}
	return want, nil
}

// replyPosted reads the created comment from a 201.
func (c *Client) replyPosted(what string, resp restResponse) (ReplyResult, error) {
	if !resp.ok() {
		return ReplyResult{}, fmt.Errorf("%s: %w", what, c.statusErr(resp))
	}
	var out struct {
		ID      int64  `json:"id"`
		HTMLURL string `json:"html_url"`
	}
	if err := decodeJSON(resp, &out); err != nil {
		return ReplyResult{}, fmt.Errorf("%s: posted, but %w", what, err)
	}
	return ReplyResult{CommentID: out.ID, URL: out.HTMLURL}, nil
}
