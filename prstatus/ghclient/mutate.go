package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
)

// The transport never sends a mutation twice: only the caller knows whether doing it again is
// harmless. These helpers let each mutation decide: wait and try again, and tell a failure that
// proves nothing was done from one that leaves the outcome open.

// waitToRetry decides whether attempt+1 may follow a mutation that failed with err, and waits for
// it: a rate limit is waited out within the policy's patience (the transport's gate does the
// waiting, before the next request), unavailability backs off exponentially, and anything else is
// final (false). A wait that would outlast ctx's deadline is not started (false): the caller
// returns err. It fails only when ctx ends while waiting.
func (c *Client) waitToRetry(ctx context.Context, what string, err error, attempt int) (bool, error) {
	t := c.transport
	if ctx.Err() != nil {
		return false, nil
	}
	wait, again := t.retry.retryDecision(err, attempt, t.jitter)
	if !again || !fits(ctx, wait) {
		return false, nil
	}
	c.log.LogAttrs(ctx, slog.LevelWarn, "github mutation failed; retrying",
		slog.String("what", what), slog.Int("attempt", attempt), slog.Duration("wait", wait),
		slog.String("error", err.Error()))
	if errors.Is(err, ErrRateLimited) {
		return true, nil
	}
	if serr := t.sleep(ctx, wait); serr != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("%s: %w", what, context.Cause(ctx))
		}
		return false, fmt.Errorf("%s: wait before retrying: %w", what, scrubError(t.token, serr))
	}
	return true, nil
}

// pause waits one first backoff step: time for GitHub to finish what a lost answer was about. When
// ctx's deadline comes sooner it does not wait at all: reading back at once beats not reading.
func (c *Client) pause(ctx context.Context) error {
	t := c.transport
	d := t.retry.backoff(1, t.jitter)
	if !fits(ctx, d) {
		return ctx.Err()
	}
	return t.sleep(ctx, d)
}

// noResponse reports whether err is a failure with no answer from GitHub at all (connection
// refused, reset or dropped, a timeout): unlike a 5xx it carries no status.
func noResponse(err error) bool {
	var st *statusError
	return errors.Is(err, ErrUnavailable) && !errors.As(err, &st)
}

// neverSent reports whether err proves the request never reached GitHub: no connection could be
// made (a refused dial, an unknown host). Anything else may have been acted on.
func neverSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}
