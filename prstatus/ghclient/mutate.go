package ghclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
)

// The transport never sends a write twice: only the caller knows whether doing it again is
// harmless. Client.write is the one retry loop of every write (a reply, a review request, a re-run,
// resolving a thread); each says what may be tried again and how to tell whether a failed attempt
// landed anyway. Merge is the exception: it is sent once, ever (merge.go).

// write is one write to GitHub and how to repeat it.
type write struct {
	// what names the write in errors and logs.
	what string
	// send makes one attempt (attempt counts from 1) and returns nil when the write is done.
	send func(ctx context.Context, attempt int) error
	// retryable, when set, narrows the failures after which another attempt may follow; the retry
	// policy decides among those (a rate limit within its patience, unavailability).
	retryable func(err error) bool
	// landed, when set, is asked before another attempt after a failure that may have been acted on
	// (anything but a rate limit or a connection never made): true means the write is there and
	// nothing is sent again. Unset means sending the write twice is harmless. Its error describes
	// why the question could not be answered; the loop then stops with the attempt's error.
	landed func(ctx context.Context) (bool, error)
}

// write runs w until an attempt succeeds, a failure is final, the policy's attempts are spent or
// a wait would outlast ctx's deadline (waitToRetry). Errors name w.what and wrap the last
// attempt's error.
func (c *Client) write(ctx context.Context, w write) error {
	for attempt := 1; ; attempt++ {
		err := w.send(ctx, attempt)
		if err == nil {
			return nil
		}
		if w.retryable != nil && !w.retryable(err) {
			return fmt.Errorf("%s: %w", w.what, err)
		}
		again, werr := c.waitToRetry(ctx, w.what, err, attempt)
		if werr != nil {
			return werr
		}
		if !again {
			return fmt.Errorf("%s: %w", w.what, err)
		}
		if w.landed == nil || errors.Is(err, ErrRateLimited) || neverSent(err) {
			continue // harmless to repeat, or GitHub did not act on it
		}
		done, lerr := w.landed(ctx)
		if lerr != nil {
			return fmt.Errorf("%s: %w (and %v)", w.what, err, lerr)
		}
		if done {
			return nil
		}
	}
}

// waitToRetry decides whether attempt+1 may follow a write that failed with err, and waits for
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
	c.log.LogAttrs(ctx, slog.LevelWarn, "github write failed; retrying",
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
