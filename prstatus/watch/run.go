package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// ErrRunning is Run's error when the watcher already runs.
var ErrRunning = errors.New("watch: the watcher already runs")

const (
	// snapGap is how soon the next snapshots go when more are due than MaxInFlight.
	snapGap = 500 * time.Millisecond
	// connectBackoff is how long a failed Connect waits before it is tried again.
	connectBackoff = 30 * time.Second
	// saveEvery is how many ticks that sent something pass between two saves of the spend.
	saveEvery = 10
	// refreshRetry is how soon refreshes are considered again when the budget had no room.
	refreshRetry = time.Minute
	// minStep keeps Run from spinning when the next wake-up is already due.
	minStep = 10 * time.Millisecond
)

// Run watches until ctx ends, then saves the spend and returns nil.
func (w *Watcher) Run(ctx context.Context) error {
	w.mu.Lock()
	if w.running {
		w.mu.Unlock()
		return ErrRunning
	}
	w.running = true
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.running = false
		sp := w.spendLocked()
		w.mu.Unlock()
		w.saveSpend(sp)
	}()
	for {
		next := w.tick(ctx)
		if ctx.Err() != nil {
			return nil
		}
		d := max(next.Sub(w.cfg.Now()), minStep)
		select {
		case <-ctx.Done():
			return nil
		case <-w.cfg.After(d):
		case <-w.kick:
		}
	}
}

// tick does what is due at the clock's now: at most one fingerprint batch, then up to MaxInFlight
// snapshots. It returns when the watcher should look again.
func (w *Watcher) tick(ctx context.Context) time.Time {
	now := w.cfg.Now()
	w.mu.Lock()
	idle := len(w.prs) == 0
	w.mu.Unlock()
	if idle {
		// Nothing to watch: no token is resolved, no request sent, until Add wakes the loop.
		return now.Add(w.cfg.MaxCycle)
	}
	src, next, ok := w.source(ctx, now)
	if !ok {
		return next
	}
	if g, ok := src.(Gated); ok {
		if h, held := g.Gate().NotBefore("graphql"); held {
			return h.Until.Add(w.jitter())
		}
	}
	w.mu.Lock()
	if until, over := w.gov.overBudget(now); over {
		w.mu.Unlock()
		return until.Add(w.jitter())
	}
	batch := w.pickBatchLocked(now)
	w.mu.Unlock()

	sent := false
	if len(batch) > 0 {
		w.runBatch(ctx, src, batch, now)
		sent = true
		// The batch may have been told to wait: then the snapshots wait too, instead of
		// queueing inside the transport.
		if g, ok := src.(Gated); ok {
			if h, held := g.Gate().NotBefore("graphql"); held {
				return h.Until.Add(w.jitter())
			}
		}
	}
	jobs, wake := w.pickSnapshots(now)
	if len(jobs) > 0 {
		w.runSnapshots(ctx, src, jobs, now)
		sent = true
	}

	w.mu.Lock()
	save := false
	var sp Spend
	if sent {
		w.ticks++
		if save = w.ticks%saveEvery == 0; save {
			sp = w.spendLocked()
		}
	}
	wakeAt := w.nextWakeLocked(now, wake)
	w.mu.Unlock()
	if save {
		w.saveSpend(sp)
	}
	return wakeAt
}

// source returns the Source, connecting on first use.
func (w *Watcher) source(ctx context.Context, now time.Time) (Source, time.Time, bool) {
	w.mu.Lock()
	src, retry := w.src, w.nextConnect
	w.mu.Unlock()
	if src != nil {
		return src, time.Time{}, true
	}
	if now.Before(retry) {
		return nil, retry, false
	}
	src, err := w.cfg.Connect(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("watch: connect to GitHub: %w", err)
		w.nextConnect = now.Add(connectBackoff)
		w.cfg.Logger.Warn("could not connect to GitHub; trying again later", "err", err)
		for ref, e := range w.prs {
			w.publishErrLocked(ref, e, err, now)
		}
		return nil, w.nextConnect, false
	}
	w.src = src
	return src, time.Time{}, true
}

// publishErrLocked publishes err for ref unless its newest update already says the same.
func (w *Watcher) publishErrLocked(ref prstatus.PRRef, e *entry, err error, now time.Time) {
	if e.has && e.upd.Err != nil && e.upd.Err.Error() == err.Error() {
		return
	}
	w.publishLocked(ref, e, Update{At: now, Err: err, Cause: CauseError})
}

// sortedLocked is the watched references in a fixed order.
func (w *Watcher) sortedLocked() []prstatus.PRRef {
	refs := make([]prstatus.PRRef, 0, len(w.prs))
	for r := range w.prs {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, compareRefs)
	return refs
}

func compareRefs(a, b prstatus.PRRef) int {
	return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Repo, b.Repo), cmp.Compare(a.Number, b.Number))
}

// hotLocked reports whether a pull request is looked at in every batch: it changed lately, its
// checks run, or GitHub is still computing whether it can merge.
func (w *Watcher) hotLocked(e *entry, now time.Time) bool {
	if !e.changedAt.IsZero() && now.Sub(e.changedAt) < w.cfg.HotWindow {
		return true
	}
	return e.hasFP && (e.fp.Rollup == "PENDING" || e.fp.Mergeable == "UNKNOWN")
}

// pickBatchLocked returns the next fingerprint batch when one is due: the hot pull requests (up
// to a quarter of the batch), then the next ones in rotation.
func (w *Watcher) pickBatchLocked(now time.Time) []prstatus.PRRef {
	if len(w.prs) == 0 || now.Before(w.nextFP) {
		return nil
	}
	refs := w.sortedLocked()
	var hot, cold []prstatus.PRRef
	for _, r := range refs {
		if w.hotLocked(w.prs[r], now) && len(hot) < w.cfg.MaxBatch/4 {
			hot = append(hot, r)
		} else {
			cold = append(cold, r)
		}
	}
	room := w.cfg.MaxBatch - len(hot)
	batch := hot
	if len(cold) <= room {
		batch = append(batch, cold...)
	} else {
		// Go on after the last pull request looked at (by reference, so that pull requests
		// turning hot or cold, added or removed, do not make the rotation skip any).
		start := max(slices.IndexFunc(cold, func(r prstatus.PRRef) bool { return compareRefs(w.lastCold, r) < 0 }), 0)
		end := min(start+room, len(cold))
		batch = append(batch, cold[start:end]...)
		w.lastCold = cold[end-1]
		if end == len(cold) {
			w.lastCold = prstatus.PRRef{}
		}
	}
	nb := 1
	if room > 0 {
		nb = max(1, (len(cold)+room-1)/room)
	}
	w.nextFP = now.Add(w.gov.interval(now, nb, len(hot) > 0) + w.jitter())
	return batch
}

// runBatch reads the fingerprints of refs and marks those that moved for a snapshot.
func (w *Watcher) runBatch(ctx context.Context, src Source, refs []prstatus.PRRef, now time.Time) {
	w.mu.Lock()
	w.inFlight++
	w.mu.Unlock()
	b, err := src.Fingerprints(ctx, refs)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inFlight--
	var rl *ghclient.RateLimitError
	switch {
	case err == nil:
		w.gov.charge(now, max(b.RateLimit.Cost, 1))
		w.gov.observe(b.RateLimit)
		w.gov.noteBatch(b.RateLimit.Cost)
	case errors.As(err, &rl) && rl.HeldBack:
		// Not sent: the gate held it.
	default:
		w.gov.charge(now, 1)
	}
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		err = fmt.Errorf("watch: look for changes: %w", err)
		w.cfg.Logger.Debug("fingerprint batch failed", "prs", len(refs), "err", err)
		for _, r := range refs {
			if e, ok := w.prs[r]; ok {
				w.publishErrLocked(r, e, err, now)
			}
		}
		return
	}
	for _, r := range refs {
		e, ok := w.prs[r]
		fp, got := b.PRs[r]
		if !ok || !got {
			continue
		}
		if !e.hasFP {
			e.fp, e.hasFP = fp, true
			if e.want == "" && e.has && (e.upd.Err != nil || contradicts(fp, e.upd)) {
				e.want = CauseFingerprint + ": first look"
			}
			continue
		}
		diff := e.fp.Changed(fp)
		e.fp = fp
		switch {
		case len(diff) > 0:
			e.markChanged(now, w.cfg.HotRefresh)
			if e.want == "" {
				e.want = CauseFingerprint + ": " + strings.Join(diff, ", ")
			}
		case e.want == "" && e.has && e.upd.Err != nil && !fp.Missing:
			if e.upd.Cause == CauseError && e.good != nil {
				// Only looking failed (a batch, the connection) and nothing moved since the
				// last good snapshot: it stands again, without a read.
				w.publishLocked(r, e, Update{Snapshot: e.good, At: now, Cause: CauseRecovered})
				continue
			}
			// The last read failed and GitHub answers again: read it again.
			e.want = CauseRefresh
		}
	}
}

// contradicts reports whether a fingerprint says something the update's snapshot does not: a
// change between the snapshot and the first fingerprint.
func contradicts(fp ghclient.Fingerprint, u Update) bool {
	s := u.Snapshot
	if s == nil {
		return true
	}
	return fp.Missing || fp.UpdatedAt.After(u.At) || fp.HeadOID != s.HeadOID || fp.State != string(s.State) ||
		fp.IsDraft != s.IsDraft || fp.Mergeable != string(s.Mergeable) ||
		fp.MergeStateStatus != s.MergeStateStatus || fp.ReviewDecision != s.ReviewDecision
}

type snapJob struct {
	ref   prstatus.PRRef
	cause string
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
		case e.want != "" && e.has:
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
		jobs = append(jobs, snapJob{c.ref, cause})
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
			s, err := src.Snapshot(ctx, j.ref)
			w.mu.Lock()
			w.inFlight--
			w.gov.pending = max(w.gov.pending-w.gov.snapCost, 0)
			var rl *ghclient.RateLimitError
			switch {
			case err == nil:
				w.gov.charge(now, max(s.RateLimit.Cost, 1))
				w.gov.observe(s.RateLimit)
				w.gov.noteSnapshot(s.RateLimit.Cost)
			case errors.As(err, &rl) && rl.HeldBack:
			default:
				w.gov.charge(now, 1)
			}
			if e, ok := w.prs[j.ref]; ok {
				e.busy = false
			}
			w.mu.Unlock()
			if err != nil && ctx.Err() != nil {
				return
			}
			if err != nil {
				err = fmt.Errorf("watch: read %s: %w", j.ref, err)
			}
			force := j.cause == CausePoke || j.cause == CauseFirst
			w.publishResult(j.ref, s, err, now, j.cause, force)
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

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (w *Watcher) jitter() time.Duration {
	if w.cfg.Jitter <= 0 {
		return 0
	}
	return time.Duration(w.cfg.Rand() * float64(w.cfg.Jitter))
}
