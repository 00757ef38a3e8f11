package watch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// ErrRunning is Run's error when the watcher already runs.
var ErrRunning = errors.New("watch: the watcher already runs")

const (
	// snapGap is how soon the next snapshots go when more are due than MaxInFlight.
	snapGap = 500 * time.Millisecond
	// connectBackoff is how long a failed Connect waits before it is tried again.
	connectBackoff = 30 * time.Second
	// saveEvery is how many ticks that sent something pass between two saves of the spend (and
	// of what the watcher has seen, when it read something since: BenchmarkSaveSeen in
	// mcpserver/store measures a save of 1,000 pull requests).
	saveEvery = 10
	// refreshRetry is how soon refreshes are considered again when the budget had no room.
	refreshRetry = time.Minute
	// minStep keeps Run from spinning when the next wake-up is already due.
	minStep = 10 * time.Millisecond
)

// Run watches until ctx ends, then saves the spend and what it has seen, and returns nil.
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
		w.mu.Unlock()
		w.save()
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

// save saves the spend and, when something was read since the last save, what the watcher has
// seen.
func (w *Watcher) save() {
	w.mu.Lock()
	sp := w.spendLocked()
	seen := w.takeSeenLocked()
	w.mu.Unlock()
	w.saveSpend(sp)
	w.saveSeen(seen)
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
	w.endGracesLocked(now)
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
	w.askMergeability(ctx, src, now)

	w.mu.Lock()
	save := false
	var sp Spend
	var seen map[prstatus.PRRef]Seen
	if sent {
		w.ticks++
		if save = w.ticks%saveEvery == 0; save {
			sp = w.spendLocked()
			seen = w.takeSeenLocked()
		}
	}
	wakeAt := w.nextWakeLocked(now, wake)
	w.mu.Unlock()
	if save {
		w.saveSpend(sp)
		w.saveSeen(seen)
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
