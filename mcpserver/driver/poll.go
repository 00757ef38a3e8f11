package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

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
// continues in the next call. A driver that does not wait (monitor_id=all) takes only a snapshot
// the watcher already has: with none new, it is idle.
func (d *Driver) poll(act statemachine.Action) (next statemachine.Action, o Outcome, stop bool) {
	if !time.Now().Before(d.call.Deadline) {
		return act, d.timeUp(act), true
	}
	if act.PollNow {
		if f := d.mon.TakeFresh(d.h.Now(), freshFor); f != nil {
			return d.step(statemachine.PollInput(*f))
		}
	}
	w, err := d.h.Watcher()
	if err != nil {
		return act, failure(err), true
	}
	w.Add(d.mon.Ref)
	d.mon.CatchUp(w, d.h.Now())
	if act.PollNow {
		d.mon.Poke(w, d.h.Now())
	}
	u, o, stop := d.nextUpdate(w, act)
	switch {
	case stop:
		return act, o, true
	case u == nil:
		return act, Outcome{}, false
	case u.Err != nil:
		return d.pollFailed(act, u.Err)
	case u.Snapshot == nil:
		return act, Outcome{}, false
	}
	if !d.notBefore.IsZero() && !d.adoptGateHold() {
		d.notBefore = time.Time{}
		d.call.Progress.Remark("")
	}
	return d.step(statemachine.PollInput(d.h.Derive(u.Snapshot, d.h.Now())))
}

// step feeds the machine a poll's input; a machine error ends the call.
func (d *Driver) step(in statemachine.Input) (statemachine.Action, Outcome, bool) {
	if in.Kind == statemachine.InputPoll {
		d.h.SawPoll(d.mon.Ref, in.Facts, d.h.Now())
	}
	next, err := d.mon.Step(d.h.Now(), in)
	if err != nil {
		return next, failure(err), true
	}
	return next, Outcome{}, false
}

// nextUpdate is the watcher's next update of the pull request this monitor has not seen; or the
// outcome that ends the call (its deadline, too many waiting calls, nothing new for a driver that
// does not wait); or neither when the call was cancelled or the update was older than the
// monitor's last poke (the loop polls again).
func (d *Driver) nextUpdate(w *watch.Watcher, act statemachine.Action) (*watch.Update, Outcome, bool) {
	seen := d.mon.SeenSeq()
	var u watch.Update
	if d.pace != WaitForNews {
		latest, ok := w.Latest(d.mon.Ref)
		if !ok || latest.Seq <= seen {
			return nil, Outcome{Kind: idle}, true
		}
		u = latest
	} else {
		if d.call.HoldsWorker {
			release, ok := d.h.AcquireWait()
			if !ok {
				return nil, d.crowded(act), true
			}
			defer release()
		}
		for {
			d.adoptGateHold()
			slice, cancel := context.WithTimeout(d.work, d.h.ProgressEvery())
			next, err := w.Wait(slice, d.mon.Ref, seen)
			cancel()
			if err == nil {
				u = next
				break
			}
			if errors.Is(err, watch.ErrNotWatched) && d.ctx.Err() == nil {
				w.Add(d.mon.Ref) // removed meanwhile (a stop raced this call): watch it again
				continue
			}
			switch {
			case d.ctx.Err() != nil:
				return nil, Outcome{}, false // the loop reports the cancellation
			case d.work.Err() != nil:
				return nil, d.timeUp(act), true
			}
		}
	}
	if !d.mon.See(u) {
		return nil, Outcome{}, false
	}
	return &u, Outcome{}, false
}

// pollFailed handles the watcher's report that it could not read the pull request.
func (d *Driver) pollFailed(act statemachine.Action, err error) (statemachine.Action, Outcome, bool) {
	var rl *ghclient.RateLimitError
	switch {
	case errors.As(err, &rl):
		d.waitFor(rl)
		if !rl.HeldBack {
			d.mon.Note("error", "poll rate limited: "+contract.GitHubCause(err), nil)
		}
		return act, Outcome{}, false
	case contract.FatalGitHub(err):
		return act, Outcome{Kind: Failed, Err: contract.GitHubCause(err)}, true
	}
	d.mon.Note("error", "poll failed: "+contract.GitHubCause(err), nil)
	d.call.Progress.Say(fmt.Sprintf("%s · %s; retrying", d.mon.Ref, contract.SayOnce("GitHub is unreachable: ", ghclient.ErrUnavailable, err)))
	return act, Outcome{}, false
}

// newsBeforeAsking feeds the machine the watcher's news the monitor has not seen, before a
// question is put to the user, when the news takes away what the question offers (a request for
// changes while the merge is offered): the machine supersedes the question by its rule. Other news
// is left for the poll after the answer (a copy of the machine is asked first). It never waits and
// never pokes. superseded is true when the machine moved on.
func (d *Driver) newsBeforeAsking(act statemachine.Action) (next statemachine.Action, superseded bool) {
	w, err := d.h.Watcher()
	if err != nil {
		return act, false
	}
	u, ok := w.Latest(d.mon.Ref)
	if !ok || u.Err != nil || u.Snapshot == nil || u.Seq <= d.mon.SeenSeq() {
		return act, false
	}
	now := d.h.Now()
	in := statemachine.PollInput(d.h.Derive(u.Snapshot, now))
	probe, err := statemachine.Restore(d.h.Machine(), d.mon.Position())
	if err != nil {
		return act, false
	}
	if next, err := probe.Step(now, in); err != nil || stillAsks(act, next) || !d.mon.See(u) {
		return act, false
	}
	next, err = d.mon.Step(now, in)
	if err != nil || stillAsks(act, next) {
		return act, false
	}
	return next, true
}

// stillAsks: next still asks the question act asks.
func stillAsks(act, next statemachine.Action) bool {
	return next.Kind == statemachine.ActionAskUser && (next.Question == nil || act.Question == nil || next.Question.Seq == act.Question.Seq)
}
