package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
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

// wait sleeps for d, or until the deadline if that comes first; it returns false when ctx ends or
// the deadline passes first. Progress goes out on the heartbeat's own clock meanwhile.
func wait(ctx context.Context, d time.Duration, deadline time.Time) bool {
	end := time.Now().Add(d)
	if end.After(deadline) {
		end = deadline
	}
	timer := time.NewTimer(time.Until(end))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return time.Now().Before(deadline)
	}
}

// poll waits, takes one snapshot (one GraphQL request) and feeds the facts to the machine. A
// GitHub failure that waiting cannot heal ends the call with an error and leaves the monitor
// untouched; a transient one is retried with backoff, a rate limit when GitHub said, and the call
// ends with polling at its deadline whatever GitHub does: the wait continues in the next call.
func (d *driver) poll(act statemachine.Action) (statemachine.Action, *mcp.CallToolResult, error) {
	facts, at := d.mon.lastFacts()
	delay := d.s.cfg.Poll.next(facts, d.failures, d.s.cfg.Now())
	if act.PollNow && d.failures == 0 {
		delay = 0
	}
	if facts != nil && d.s.cfg.Now().Sub(at) < delay {
		delay -= d.s.cfg.Now().Sub(at)
	}
	delay = max(delay, time.Until(d.notBefore))
	if !time.Now().Before(d.deadline) {
		return act, d.timeUp(act), nil
	}
	if act.PollNow {
		if f := d.mon.takeFresh(d.s.cfg.Now(), freshFor); f != nil {
			next, err := d.mon.step(d.s.cfg.Now(), statemachine.PollInput(*f))
			return next, nil, err
		}
	}
	if delay > 0 && !wait(d.ctx, delay, d.deadline) {
		if d.ctx.Err() != nil {
			return act, nil, nil // the loop reports the cancellation
		}
		return act, d.timeUp(act), nil
	}
	gh, err := d.s.github(d.work)
	if err != nil {
		return act, toolError(githubCause(err)), nil
	}
	snap, err := gh.Snapshot(d.work, d.mon.ref)
	if err != nil {
		var rl *ghclient.RateLimitError
		switch {
		case d.ctx.Err() != nil:
			return act, nil, nil
		case d.work.Err() != nil:
			return act, d.timeUp(act), nil
		case errors.As(err, &rl):
			d.waitFor(rl)
			if !rl.HeldBack {
				d.mon.state.Log(d.mon.id, "error", "poll rate limited: "+githubCause(err), nil)
			}
			return act, nil, nil
		case fatalGitHub(err):
			return act, toolError(githubCause(err)), nil
		}
		d.failures++
		d.mon.state.Log(d.mon.id, "error", "poll failed: "+githubCause(err), nil)
		d.progressMessage(fmt.Sprintf("%s · GitHub unreachable (%s); retrying", d.mon.ref, oneLine(err)))
		return act, nil, nil
	}
	d.failures = 0
	if !d.notBefore.IsZero() {
		d.notBefore = time.Time{}
		d.progressNote("")
	}
	f := d.s.derive(snap, d.s.cfg.Now())
	next, err := d.mon.step(d.s.cfg.Now(), statemachine.PollInput(f))
	return next, nil, err
}

// waitFor records how long GitHub asked to wait: no poll and no GitHub work in this call before
// then (the token's gate holds every request back too, across calls and restarts).
func (d *driver) waitFor(rl *ghclient.RateLimitError) {
	until := time.Now().Add(max(rl.RetryAfter, time.Second))
	if until.After(d.notBefore) {
		d.notBefore = until
	}
	d.progressNote("GitHub rate limit: nothing is sent before " + clock(d.notBefore))
}

// holdOff waits before GitHub work while GitHub asked to wait. It returns the call's result when
// the deadline comes first (the work stays pending for the next call), nil to go on.
func (d *driver) holdOff(act statemachine.Action) *mcp.CallToolResult {
	if !time.Now().Before(d.deadline) {
		return d.timeUp(act)
	}
	if w := time.Until(d.notBefore); w > 0 && !wait(d.ctx, w, d.deadline) && d.ctx.Err() == nil {
		return d.timeUp(act)
	}
	return nil
}

// timeUp ends the call at its deadline with polling; the wait continues in the next call.
func (d *driver) timeUp(act statemachine.Action) *mcp.CallToolResult {
	out := d.stillWaiting(act)
	next := "Call pr_monitor_next_step with event=ready to keep waiting."
	switch {
	case act.Kind == statemachine.ActionServer && time.Until(d.notBefore) > 0:
		out.Message = fmt.Sprintf("GitHub work is waiting for GitHub's rate limit (nothing is sent before %s): %s. %s",
			clock(d.notBefore), act.Server.Describe, next)
	case act.Kind == statemachine.ActionServer:
		out.Message = "GitHub work continues in the next call: " + act.Server.Describe + ". " + next
	case time.Until(d.notBefore) > 0:
		out.Message = fmt.Sprintf("Still watching; GitHub asked prmonitor to wait (rate limit): nothing is sent before %s. %s",
			clock(d.notBefore), next)
	}
	return d.result(out)
}

// clock renders a wall-clock time for a message.
func clock(t time.Time) string { return t.UTC().Format("15:04:05") + " UTC" }
