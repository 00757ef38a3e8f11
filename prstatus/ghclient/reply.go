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
//     POST repeated; any other 4xx is returned at once. Attempts are bounded by the retry policy
//     (Client.write).
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

	body := r.Body + "\n\n" + want.String()
	var res ReplyResult
	err = c.write(ctx, write{
		what: what,
		send: func(ctx context.Context, _ int) error {
			posted, err := c.postReply(ctx, ref, r.ReplyToID, body)
			if err == nil {
				res = ReplyResult{CommentID: posted.GetID(), URL: posted.GetHTMLURL()}
			}
			return err
		},
		landed: func(ctx context.Context) (bool, error) {
			st, err := c.readThread(ctx, r.ThreadID)
			if err != nil {
				return false, fmt.Errorf("the thread could not be read again to see whether the reply landed: %v", err)
			}
			tc, ok := st.ourReply(want)
			if ok {
				c.log.InfoContext(ctx, "reply landed although its answer was lost", "pr", ref.String(), "thread", r.ThreadID, "comment", tc.id)
				res = ReplyResult{CommentID: tc.id, URL: tc.url, Recovered: true}
			}
			return ok, nil
		},
	})
	if err != nil {
		return ReplyResult{}, err
	}
	return res, nil
}

// postReply sends the POST once. go-github has no method for GitHub's reply endpoint (its
// CreateCommentInReplyTo uses the older in_reply_to form of .../comments), so the request is
// built with go-github's NewRequest and sent with its Do, like its own methods.
func (c *Client) postReply(ctx context.Context, ref prstatus.PRRef, replyTo int64, body string) (*github.PullRequestComment, error) {
	owner, repo := repoArgs(ref)
	u := fmt.Sprintf("repos/%s/%s/pulls/%d/comments/%d/replies", owner, repo, ref.Number, replyTo)
	req, err := c.rest.NewRequest(ctx, http.MethodPost, u, map[string]string{"body": body})
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", c.callError(err))
	}
	var out github.PullRequestComment
	resp, err := c.rest.Do(req, &out)
	if err != nil {
		return nil, c.restError(ctx, resp, err)
	}
	return &out, nil
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
