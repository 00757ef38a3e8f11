package watch

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Snapshots: which are due (pokes, moved fingerprints, first reads, follow-ups, safety
// refreshes), within the governor's pace, and when the watcher should wake next.

type snapJob struct {
	ref   prstatus.PRRef
	cause string
	// fp is the pull request's fingerprint when the snapshot was chosen (hasFP: one is known):
	// the snapshot is at least as new.
	fp    ghclient.Fingerprint
	hasFP bool
}

// pickSnapshots chooses up to MaxInFlight snapshots due now: poked ones, then first reads and
// moved fingerprints (paced once half the hour's budget is spent), then (one a tick, paced by the
// governor) a hot refresh or a safety refresh. wake is when something it left could go (zero:
// nothing left).
func (w *Watcher) pickSnapshots(now time.Time) (jobs []snapJob, wake time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	type cand struct {
		ref  prstatus.PRRef
		e    *entry
		prio int
	}
	var cands []cand
	for r, e := range w.prs {
		switch {
		case e.busy:
		case e.want == CausePoke:
			cands = append(cands, cand{r, e, 0})
		case e.want != "" && (e.has || e.want != CauseFirst):
			// A moved fingerprint (resumed pull requests included) or a failed read.
			cands = append(cands, cand{r, e, 1})
		case e.want != "":
			// A first read: after the changes of pull requests already known.
			cands = append(cands, cand{r, e, 2})
		case !e.followUp.IsZero() && !now.Before(e.followUp):
			cands = append(cands, cand{r, e, 3})
		case !e.snapAt.IsZero() && now.Sub(e.snapAt) >= w.cfg.SafetyRefresh/2:
			cands = append(cands, cand{r, e, 4})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.prio, b.prio), a.e.snapAt.Compare(b.e.snapAt), compareRefs(a.ref, b.ref))
	})
	soon := func(t time.Time) {
		if wake.IsZero() || t.Before(wake) {
			wake = t
		}
	}
	refreshed := map[int]bool{}
	for _, c := range cands {
		if len(jobs) >= w.cfg.MaxInFlight {
			if c.prio <= 2 {
				soon(now.Add(snapGap))
			}
			break
		}
		if !w.gov.snapshotRoom(now) {
			// Detection keeps its share until the hour ends: nothing else before there is room.
			at := w.gov.roomAt(now)
			w.nextChanged = latest(w.nextChanged, at)
			w.nextFollowUp = latest(w.nextFollowUp, at)
			w.nextRefresh = latest(w.nextRefresh, at)
			soon(at)
			break
		}
		cause := c.e.want
		switch c.prio {
		case 1, 2:
			if now.Before(w.nextChanged) {
				soon(w.nextChanged)
				continue
			}
			if gap := w.gov.changedGap(now); gap > 0 {
				w.nextChanged = now.Add(gap)
			}
		case 3, 4:
			next := &w.nextRefresh
			if c.prio == 3 {
				next = &w.nextFollowUp
			}
			if refreshed[c.prio] || now.Before(*next) {
				if now.Before(*next) {
					soon(*next)
				}
				continue
			}
			refreshed[c.prio] = true
			gap, ok := w.gov.refreshGap(now)
			if !ok {
				// No room for refreshes now: look again in a minute, not at every tick.
				*next = now.Add(refreshRetry)
				soon(*next)
				continue
			}
			if c.prio == 4 {
				// Safety refreshes go round the pull requests evenly: each about every
				// SafetyRefresh, never faster than the budget allows.
				gap = max(gap, w.cfg.SafetyRefresh/time.Duration(max(len(w.prs), 1)))
			}
			*next = now.Add(gap + w.jitter())
			cause = CauseRefresh
		}
		// Reserve the snapshot's points now, so that the next ones of this tick see them;
		// runSnapshots charges what GitHub did.
		w.gov.pending += w.gov.snapCost
		c.e.want, c.e.busy = "", true
		jobs = append(jobs, snapJob{ref: c.ref, cause: cause, fp: c.e.fp, hasFP: c.e.hasFP})
	}
	return jobs, wake
}

// runSnapshots takes the snapshots, at most MaxInFlight at once, and publishes what is new.
func (w *Watcher) runSnapshots(ctx context.Context, src Source, jobs []snapJob, now time.Time) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			w.mu.Lock()
			w.inFlight++
			w.mu.Unlock()
			// The update is stamped when its request goes: a poke's snapshot is never stamped
			// before the poke, though the tick that sends it may have begun before.
			sent := w.cfg.Now()
			log := &ghclient.RequestLog{}
			s, err := src.Snapshot(ghclient.WithRequestLog(ctx, log), j.ref)
			w.mu.Lock()
			w.inFlight--
			w.gov.pending = max(w.gov.pending-w.gov.snapCost, 0)
			var rl prstatus.RateLimit
			if s != nil {
				rl = s.RateLimit
			}
			w.chargeLocked(now, err, rl, log, w.gov.snapCost)
			if err == nil {
				w.gov.noteSnapshot(s.RateLimit.Cost)
			}
			if e, ok := w.prs[j.ref]; ok {
				e.busy = false
				if err == nil {
					w.noteReadLocked(e, j.fp, j.hasFP && !j.fp.Missing, sent)
				}
			}
			w.mu.Unlock()
			if err != nil && ctx.Err() != nil {
				return
			}
			if err != nil {
				err = fmt.Errorf("watch: read %s: %w", j.ref, err)
			}
			force := j.cause == CausePoke || j.cause == CauseFirst
			w.publishResult(j.ref, s, err, sent, j.cause, force)
		})
	}
	wg.Wait()
}

// nextWakeLocked is when the next batch, refresh or paced snapshot is due.
func (w *Watcher) nextWakeLocked(now, wake time.Time) time.Time {
	next := now.Add(w.cfg.MaxCycle)
	if !wake.IsZero() && wake.Before(next) {
		next = wake
	}
	if len(w.prs) > 0 && w.nextFP.Before(next) {
		next = w.nextFP
	}
	for _, e := range w.prs {
		for _, due := range []time.Time{e.graceEnd, w.askDueLocked(e)} {
			if !due.IsZero() && due.Before(next) {
				next = due
			}
		}
		if e.busy {
			continue
		}
		if !e.followUp.IsZero() {
			if due := latest(e.followUp, w.nextFollowUp); due.Before(next) {
				next = due
			}
		}
		if !e.snapAt.IsZero() {
			if due := latest(e.snapAt.Add(w.cfg.SafetyRefresh/2), w.nextRefresh); due.Before(next) {
				next = due
			}
		}
	}
	return latest(next, now.Add(minStep))
}
