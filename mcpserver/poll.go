package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

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
func (d *driver) poll(act statemachine.Action) (next statemachine.Action, o outcome, stop bool) {
	if !time.Now().Before(d.call.deadline) {
		return act, d.timeUp(act), true
	}
	if act.PollNow {
		if f := d.mon.TakeFresh(d.s.cfg.Now(), freshFor); f != nil {
			return d.step(statemachine.PollInput(*f))
		}
	}
	w, err := d.s.ensureWatcher()
	if err != nil {
		return act, failure(err), true
	}
	w.Add(d.mon.Ref)
	d.mon.CatchUp(w, d.s.cfg.Now())
	if act.PollNow {
		d.mon.Poke(w, d.s.cfg.Now())
	}
	u, o, stop := d.nextUpdate(w, act)
	switch {
	case stop:
		return act, o, true
	case u == nil:
		return act, outcome{}, false
	case u.Err != nil:
		return d.pollFailed(act, u.Err)
	case u.Snapshot == nil:
		return act, outcome{}, false
	}
	if !d.notBefore.IsZero() && !d.adoptGateHold() {
		d.notBefore = time.Time{}
		d.call.beat.remark("")
	}
	return d.step(statemachine.PollInput(d.s.derive(u.Snapshot, d.s.cfg.Now())))
}

// step feeds the machine a poll's input; a machine error ends the call.
func (d *driver) step(in statemachine.Input) (statemachine.Action, outcome, bool) {
	if in.Kind == statemachine.InputPoll {
		d.s.failures().sawPoll(d.mon.Ref, in.Facts, d.s.cfg.Now())
	}
	next, err := d.mon.Step(d.s.cfg.Now(), in)
	if err != nil {
		return next, failure(err), true
	}
	return next, outcome{}, false
}

// nextUpdate is the watcher's next update of the pull request this monitor has not seen; or the
// outcome that ends the call (its deadline, too many waiting calls, nothing new for a driver that
// does not wait); or neither when the call was cancelled or the update was older than the
// monitor's last poke (the loop polls again).
func (d *driver) nextUpdate(w *watch.Watcher, act statemachine.Action) (*watch.Update, outcome, bool) {
	seen := d.mon.SeenSeq()
	var u watch.Update
	if d.pace != waitForNews {
		latest, ok := w.Latest(d.mon.Ref)
		if !ok || latest.Seq <= seen {
			return nil, outcome{kind: idle}, true
		}
		u = latest
	} else {
		if d.call.holdsWorker() {
			release, ok := d.s.waiting.acquire()
			if !ok {
				return nil, d.crowded(act), true
			}
			defer release()
		}
		for {
			d.adoptGateHold()
			slice, cancel := context.WithTimeout(d.work, d.s.cfg.ProgressEvery)
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
				return nil, outcome{}, false // the loop reports the cancellation
			case d.work.Err() != nil:
				return nil, d.timeUp(act), true
			}
		}
	}
	if !d.mon.See(u) {
		return nil, outcome{}, false
	}
	return &u, outcome{}, false
}

// pollFailed handles the watcher's report that it could not read the pull request.
func (d *driver) pollFailed(act statemachine.Action, err error) (statemachine.Action, outcome, bool) {
	var rl *ghclient.RateLimitError
	switch {
	case errors.As(err, &rl):
		d.waitFor(rl)
		if !rl.HeldBack {
			d.mon.Note("error", "poll rate limited: "+githubCause(err), nil)
		}
		return act, outcome{}, false
	case fatalGitHub(err):
		return act, outcome{kind: failed, err: githubCause(err)}, true
	}
	d.mon.Note("error", "poll failed: "+githubCause(err), nil)
	d.call.beat.say(fmt.Sprintf("%s · %s; retrying", d.mon.Ref, sayOnce("GitHub is unreachable: ", ghclient.ErrUnavailable, err)))
	return act, outcome{}, false
}

// newsBeforeAsking feeds the machine the watcher's news the monitor has not seen, before a
// question is put to the user, when the news takes away what the question offers (a request for
// changes while the merge is offered): the machine supersedes the question by its rule. Other news
// is left for the poll after the answer (a copy of the machine is asked first). It never waits and
// never pokes. superseded is true when the machine moved on.
func (d *driver) newsBeforeAsking(act statemachine.Action) (next statemachine.Action, superseded bool) {
	w, err := d.s.ensureWatcher()
	if err != nil {
		return act, false
	}
	u, ok := w.Latest(d.mon.Ref)
	if !ok || u.Err != nil || u.Snapshot == nil || u.Seq <= d.mon.SeenSeq() {
		return act, false
	}
	now := d.s.cfg.Now()
	in := statemachine.PollInput(d.s.derive(u.Snapshot, now))
	probe, err := statemachine.Restore(d.s.cfg.Machine, d.mon.Position())
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
