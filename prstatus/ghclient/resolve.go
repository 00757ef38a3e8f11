package ghclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/shurcooL/githubv4"
)

// ResolveThread resolves a review thread (GraphQL resolveReviewThread). Resolving is idempotent,
// so a 5xx, a dropped connection or a short rate limit is retried with backoff. When the mutation
// fails for good, the thread is read once: a thread that is resolved anyway (already resolved, or
// resolved by an attempt whose answer was lost) is success.
func (c *Client) ResolveThread(ctx context.Context, threadID string) error {
	if threadID == "" {
		return errors.New("resolve thread: no thread id")
	}
	what := "resolve thread " + threadID
	input := githubv4.ResolveReviewThreadInput{ThreadID: githubv4.ID(threadID)}
	for attempt := 1; ; attempt++ {
		var m resolveMutation
		err := c.gql.Mutate(ctx, &m, input, nil)
		if err == nil {
			return nil
		}
		err = c.callError(err)
		if errors.Is(err, ErrUnauthorized) || errors.Is(err, ErrNotFound) || ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		again, werr := c.waitToRetry(ctx, what, err, attempt)
		if werr != nil {
			return werr
		}
		if again {
			continue
		}
		if st, rerr := c.readThread(ctx, threadID); rerr == nil && st.resolved {
			c.log.InfoContext(ctx, "thread is resolved although resolving it failed", "thread", threadID, "error", err.Error())
			return nil
		}
		return fmt.Errorf("%s: %w", what, err)
	}
}
