package driver

import (
	"context"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/effects"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The server's own GitHub work inside a call, and GitHub's requests to wait.

// serverActionTimeout bounds one piece of GitHub work, and so does the call's deadline, whichever
// comes first. It runs detached from the tool call's cancellation: a superseded call must not
// leave a reply half-posted and reported as failed.
const serverActionTimeout = 2 * time.Minute

// serverAction does GitHub work for the machine (package effects) and feeds the outcome back. The
// work is detached from the call's cancellation but not from its deadline. Work postponed because
// the deadline came or GitHub asked to wait is not GitHub's verdict on it: the machine is not
// told, the action stays pending and runs again when allowed.
func (d *Driver) serverAction(req statemachine.ServerRequest) (statemachine.Action, error) {
	gh, err := d.h.GitHub(d.work)
	if err != nil {
		return statemachine.Action{}, fmt.Errorf("%s", contract.GitHubCause(err))
	}
	end := time.Now().Add(serverActionTimeout)
	if d.call.Deadline.Before(end) {
		end = d.call.Deadline
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(d.ctx), end)
	defer cancel()
	out := effects.Do(ctx, gh, effects.Work{PR: d.mon.Ref, Request: req, Now: d.h.Now(), Reviewers: d.h.Reviewers()})
	d.h.SawLogs(ctx, d.mon, &out.Input, d.h.Now())
	if out.Postponed {
		if out.RateLimit != nil {
			d.waitFor(out.RateLimit)
		}
		d.mon.Note("github", req.Describe+" postponed ("+out.Why()+")", nil)
		return d.mon.Pending(), nil
	}
	d.mon.Log(monitor.WorkEvent(req, out.Input))
	return d.mon.Step(d.h.Now(), out.Input)
}

// holdOff waits before GitHub work while GitHub asked to wait. stop is true when the call ends
// first (its deadline; for a driver that does not wait, at once): the work stays pending for the
// next call.
func (d *Driver) holdOff(act statemachine.Action) (o Outcome, stop bool) {
	if !time.Now().Before(d.call.Deadline) {
		return d.timeUp(act), true
	}
	d.adoptGateHold()
	if w := time.Until(d.notBefore); w > 0 {
		if d.pace != WaitForNews {
			return Outcome{Kind: idle}, true
		}
		if !wait(d.ctx, w, d.call.Deadline) && d.ctx.Err() == nil {
			return d.timeUp(act), true
		}
	}
	return Outcome{}, false
}

// adoptGateHold reads the token's rate-limit gate: while it holds, nothing is sent (by the watcher
// or by this call's GitHub work), the call waits until it ends and says so in its progress. It
// reports whether the gate holds.
func (d *Driver) adoptGateHold() bool {
	until := d.h.HeldUntil()
	if !until.After(time.Now()) {
		return false
	}
	if until.After(d.notBefore) {
		d.notBefore = until
		d.call.Progress.Remark("GitHub rate limit: nothing is sent before " + clock(d.notBefore))
	}
	return true
}

// waitFor records how long GitHub asked to wait: no poll and no GitHub work in this call before
// then (the token's gate holds every request back too, across calls and restarts).
func (d *Driver) waitFor(rl *ghclient.RateLimitError) {
	until := time.Now().Add(max(rl.RetryAfter, time.Second))
	if until.After(d.notBefore) {
		d.notBefore = until
	}
	d.call.Progress.Remark("GitHub rate limit: nothing is sent before " + clock(d.notBefore))
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

// clock renders a wall-clock time for a message.
func clock(t time.Time) string { return t.UTC().Format("15:04:05") + " UTC" }
