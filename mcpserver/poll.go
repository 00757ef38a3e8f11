package mcpserver

import (
	"context"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// PollPolicy sets how often a PR is polled: often while checks run or GitHub is still computing
// mergeability, less when only people can move it.
type PollPolicy struct {
	Busy  time.Duration // checks running, mergeability being computed
	Quiet time.Duration // waiting on people (reviews, replies)
	Other time.Duration // anything else
	// MaxBackoff bounds the wait after repeated GitHub failures.
	MaxBackoff time.Duration
	// LowRateLimit: below this many GraphQL points left, wait for the reset.
	LowRateLimit int
}

// DefaultPollPolicy is what users get: one GraphQL request (about 3 points) per poll.
func DefaultPollPolicy() PollPolicy {
	return PollPolicy{Busy: 30 * time.Second, Quiet: 2 * time.Minute, Other: time.Minute, MaxBackoff: 5 * time.Minute, LowRateLimit: 200}
}

// next is how long to wait before polling again after f (nil: never polled), given how many polls
// in a row have failed.
func (p PollPolicy) next(f *prstatus.Facts, failures int, now time.Time) time.Duration {
	if failures > 0 {
		d := p.Other
		for i := 1; i < failures && d < p.MaxBackoff; i++ {
			d *= 2
		}
		return min(d, p.MaxBackoff)
	}
	if f == nil {
		return 0
	}
	if rl := f.RateLimit; rl.Limit > 0 && rl.Remaining < p.LowRateLimit && rl.ResetAt.After(now) {
		return rl.ResetAt.Sub(now)
	}
	switch {
	case f.CI.Pending > 0 || f.Mergeable == prstatus.MergeableUnknown:
		return p.Busy
	case f.Attention.Kind == prstatus.AttentionNone:
		return p.Quiet
	default:
		return p.Other
	}
}

// wait sleeps for d, sending a progress notification every tick; it returns false when ctx ends or
// the deadline passes first.
func wait(ctx context.Context, d time.Duration, deadline time.Time, tick time.Duration, progress func()) bool {
	end := time.Now().Add(d)
	if end.After(deadline) {
		end = deadline
	}
	timer := time.NewTimer(time.Until(end))
	defer timer.Stop()
	ticker := time.NewTicker(tick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return time.Now().Before(deadline)
		case <-ticker.C:
			progress()
		}
	}
}
