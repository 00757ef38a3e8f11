package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

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

// poll feeds the machine the next snapshot the watcher has of the monitor's pull request, waiting
// for one until the call's deadline. The watcher reads GitHub whether or not a call waits; a poll
// costs no request of its own. When the machine asks to poll now (after the agent's or the
// server's own work on GitHub), the watcher is poked and only a snapshot taken after that counts.
// A resumed monitor's first poll pokes too when the watcher read the pull request after the
// monitor's record was saved (monitor.catchUp): that read's update reached no call.
//
// A GitHub failure that waiting cannot heal ends the call with an error and leaves the monitor
// untouched; a transient one is reported as progress and waited out; a rate limit is waited out
// until GitHub said; and the call ends with polling at its deadline whatever GitHub does: the wait
// continues in the next call. In once mode (pr_monitor_next_step with monitor_id=all) nothing is
// waited for: with no new snapshot the driver is idle.
func (d *driver) poll(act statemachine.Action) (statemachine.Action, *mcp.CallToolResult, error) {
	if !time.Now().Before(d.deadline) {
		return act, d.timeUp(act), nil
	}
	if act.PollNow {
		if f := d.mon.takeFresh(d.s.cfg.Now(), freshFor); f != nil {
			next, err := d.mon.step(d.s.cfg.Now(), statemachine.PollInput(*f))
			return next, nil, err
		}
	}
	w, err := d.s.watcher()
	if err != nil {
		return act, toolError(err.Error()), nil
	}
	w.Add(d.mon.ref)
	d.mon.catchUp(w, d.s.cfg.Now())
	if act.PollNow {
		d.mon.poke(w, d.s.cfg.Now())
	}
	u, res := d.nextUpdate(w, act)
	if res != nil || u == nil {
		return act, res, nil
	}
	if u.Err != nil {
		return d.pollFailed(act, u.Err)
	}
	if u.Snapshot == nil {
		return act, nil, nil
	}
	d.failures = 0
	if !d.notBefore.IsZero() && !d.held() {
		d.notBefore = time.Time{}
		d.progressNote("")
	}
	f := d.s.derive(u.Snapshot, d.s.cfg.Now())
	next, err := d.mon.step(d.s.cfg.Now(), statemachine.PollInput(f))
	return next, nil, err
}

// nextUpdate is the watcher's next update of the pull request this monitor has not seen, or a
// result that ends the call (deadline, too many waiting calls), or neither when the call was
// cancelled or the update was older than the monitor's last poke (the loop polls again).
func (d *driver) nextUpdate(w *watch.Watcher, act statemachine.Action) (*watch.Update, *mcp.CallToolResult) {
	seen := d.mon.seenSeq()
	var u watch.Update
	if d.once {
		latest, ok := w.Latest(d.mon.ref)
		if !ok || latest.Seq <= seen {
			d.idle = true
			return nil, d.timeUp(act)
		}
		u = latest
	} else {
		if d.req.Params.Task == nil { // a task holds no worker of the transport
			release, ok := d.s.waiting.acquire()
			if !ok {
				return nil, d.crowded(act)
			}
			defer release()
		}
		for {
			d.held()
			slice, cancel := context.WithTimeout(d.work, d.s.cfg.ProgressEvery)
			next, err := w.Wait(slice, d.mon.ref, seen)
			cancel()
			if err == nil {
				u = next
				break
			}
			if errors.Is(err, watch.ErrNotWatched) && d.ctx.Err() == nil {
				w.Add(d.mon.ref) // removed meanwhile (a stop raced this call): watch it again
				continue
			}
			switch {
			case d.ctx.Err() != nil:
				return nil, nil // the loop reports the cancellation
			case d.work.Err() != nil:
				return nil, d.timeUp(act)
			}
		}
	}
	if !d.mon.see(u) {
		return nil, nil
	}
	return &u, nil
}

// pollFailed handles the watcher's report that it could not read the pull request.
func (d *driver) pollFailed(act statemachine.Action, err error) (statemachine.Action, *mcp.CallToolResult, error) {
	var rl *ghclient.RateLimitError
	switch {
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

// held reads the token's rate-limit gate: while it holds, nothing is sent (by the watcher or by
// this call's GitHub work) and the call says until when.
func (d *driver) held() bool {
	until := d.s.heldUntil()
	if !until.After(time.Now()) {
		return false
	}
	if until.After(d.notBefore) {
		d.notBefore = until
		d.progressNote("GitHub rate limit: nothing is sent before " + clock(d.notBefore))
	}
	return true
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
	d.held()
	if w := time.Until(d.notBefore); w > 0 {
		if d.once {
			d.idle = true
			return d.timeUp(act)
		}
		if !wait(d.ctx, w, d.deadline) && d.ctx.Err() == nil {
			return d.timeUp(act)
		}
	}
	return nil
}

// timeUp ends the call at its deadline with polling; the wait continues in the next call.
func (d *driver) timeUp(act statemachine.Action) *mcp.CallToolResult {
	d.held()
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

// crowded ends a call at once when too many calls already wait, so that the transport's workers
// stay free for pr_monitor_status and pr_monitor_stop.
func (d *driver) crowded(act statemachine.Action) *mcp.CallToolResult {
	out := d.output(act)
	out.Message = fmt.Sprintf("Still watching; %d calls are already waiting, the most this server lets wait at once. "+
		"Call pr_monitor_next_step with event=ready again, or wait on every pull request with one call (monitor_id=all).", d.s.waiting.size())
	return d.result(out)
}

// clock renders a wall-clock time for a message.
func clock(t time.Time) string { return t.UTC().Format("15:04:05") + " UTC" }
