package ghclient

import (
	"context"
	"errors"

	"github.com/shurcooL/githubv4"
)

// ResolveThread resolves a review thread (GraphQL resolveReviewThread). Resolving is idempotent,
// so a 5xx, a dropped connection or a short rate limit is retried with backoff (Client.write).
// When the mutation fails for good, the thread is read once: a thread that is resolved anyway
// (already resolved, or resolved by an attempt whose answer was lost) is success.
func (c *Client) ResolveThread(ctx context.Context, threadID string) error {
	if threadID == "" {
		return errors.New("resolve thread: no thread id")
	}
	input := githubv4.ResolveReviewThreadInput{ThreadID: githubv4.ID(threadID)}
	err := c.write(ctx, write{
		what: "resolve thread " + threadID,
		send: func(ctx context.Context, _ int) error {
			var m resolveMutation
			return c.callError(c.mut.Mutate(ctx, &m, input, nil))
		},
	})
	if err == nil || errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrNotFound) || ctx.Err() != nil {
		return err
	}
	if st, rerr := c.readThread(ctx, threadID); rerr == nil && st.resolved {
		c.log.InfoContext(ctx, "thread is resolved although resolving it failed", "thread", threadID, "error", err.Error())
		return nil
	}
	return err
}
