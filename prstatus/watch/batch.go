package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// Change detection: which pull requests the next fingerprint batch reads, and what its answer
// marks for a snapshot.

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
// checks run, GitHub has not computed whether it can merge (for at most HotWindow), or the last
// batch had no answer for it.
func (w *Watcher) hotLocked(e *entry, now time.Time) bool {
	if !e.changedAt.IsZero() && now.Sub(e.changedAt) < w.cfg.HotWindow || e.lookFailed {
		return true
	}
	if !e.hasFP {
		return false
	}
	unknown := e.fp.Mergeable == "UNKNOWN" && (e.unknown.since.IsZero() || now.Sub(e.unknown.since) < w.cfg.HotWindow)
	return e.fp.Rollup == "PENDING" || unknown
}

// checksMayMove reports whether a look should read the pull request's check counts: a check runs
// or failed (a re-run moves only the counts, as the superseded run keeps voting in the rollup's
// state), a required check has not reported (its success would move nothing else), or nothing is
// known yet. A green or empty rollup moves its state when anything starts.
func checksMayMove(e *entry) bool {
	if !e.hasFP {
		return true
	}
	if r := e.fp.Rollup; r != "" && r != "SUCCESS" {
		return true
	}
	return e.good != nil && len(prstatus.MissingRequiredChecks(e.good)) > 0
}

// threadsMayMove reports whether the pull request has review threads whose resolution a look
// should read (or nothing is known of it yet). Without a thread, a new one moves
// totalCommentsCount and updatedAt.
func threadsMayMove(e *entry) bool {
	return e.good == nil || len(e.good.Threads) > 0
}

// looksLocked chooses what each pull request of a batch is read with: the check counts where they
// may move, and the thread states of those that have threads, every batch, so that a resolve is
// caught at the next look. Each is one connection: a batch of 100 costs 1 point up to
// ghclient.OnePointConnections of them (100 quiet pull requests under review, 49 of them with
// checks running or failed), 2 points beyond; the governor paces the batches by what they cost.
func (w *Watcher) looksLocked(batch []prstatus.PRRef) []ghclient.FingerprintRequest {
	reqs := make([]ghclient.FingerprintRequest, len(batch))
	for i, r := range batch {
		e := w.prs[r]
		reqs[i] = ghclient.FingerprintRequest{Ref: r, Checks: checksMayMove(e), Threads: threadsMayMove(e)}
	}
	return reqs
}

// pickBatchLocked returns the next fingerprint batch when one is due: the hot pull requests (up
// to a quarter of the batch), then the next ones in rotation. A pull request not read yet is
// left out: its first snapshot is the baseline, and the points go to first reads instead. One
// resumed with the fingerprint a watcher saved before a restart is in: that fingerprint is its
// baseline.
func (w *Watcher) pickBatchLocked(now time.Time) []prstatus.PRRef {
	if len(w.prs) == 0 || now.Before(w.nextFP) {
		return nil
	}
	refs := w.sortedLocked()
	var hot, cold []prstatus.PRRef
	catchUp := false
	for _, r := range refs {
		e := w.prs[r]
		if !e.has && !e.hasFP {
			catchUp = true
			continue
		}
		if w.hotLocked(e, now) && len(hot) < w.cfg.MaxBatch/4 {
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
	w.fpPace = fpPace{at: now, nb: nb, hot: len(hot) > 0, catchUp: catchUp, jitter: w.jitter()}
	w.nextFP = now.Add(w.gov.interval(now, nb, w.fpPace.hot, catchUp) + w.fpPace.jitter)
	if len(batch) == 0 {
		return nil
	}
	return batch
}

// runBatch reads the fingerprints of refs and marks those that moved for a snapshot.
func (w *Watcher) runBatch(ctx context.Context, src Source, refs []prstatus.PRRef, now time.Time) {
	w.mu.Lock()
	w.inFlight++
	looker, canLook := src.(Looker)
	var reqs []ghclient.FingerprintRequest
	if canLook {
		reqs = w.looksLocked(refs)
	}
	w.mu.Unlock()
	log := &ghclient.RequestLog{}
	lctx := ghclient.WithRequestLog(ctx, log)
	var b ghclient.FingerprintBatch
	var err error
	if canLook {
		b, err = looker.FingerprintsOf(lctx, reqs)
	} else {
		b, err = src.Fingerprints(lctx, refs)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inFlight--
	w.chargeLocked(now, err, b.RateLimit, log, w.gov.batchCost)
	if err == nil {
		w.gov.noteBatch(b.RateLimit.Cost)
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
	for r, msg := range b.Failed {
		e, ok := w.prs[r]
		if !ok {
			continue
		}
		if e.lookFailed {
			// Twice in a row: say so to whoever waits, as for a batch that failed.
			w.publishErrLocked(r, e, fmt.Errorf("watch: look for changes: GitHub: %s", msg), now)
		}
		e.lookFailed = true
	}
	for _, r := range refs {
		e, ok := w.prs[r]
		fp, got := b.PRs[r]
		if !ok || !got {
			continue
		}
		e.lookFailed = false
		w.noteMergeableLocked(e, fp.Mergeable, fp.HeadOID, fp.BaseOID, now, true)
		if !e.hasFP {
			e.fp, e.hasFP = fp, true
			failed := e.upd.Err != nil && !fp.Missing // the read failed, GitHub answers now
			if e.want == "" && e.has && (failed || (e.upd.Err == nil && contradicts(fp, e.upd))) {
				e.want = CauseFingerprint + ": first look"
			} else if e.want == "" && !e.busy && e.has && e.upd.Err == nil && e.upd.Snapshot != nil && !fp.Missing {
				// The snapshot agrees with the first fingerprint: it is what the watcher
				// saves as seen.
				w.noteReadLocked(e, fp, true, e.readAt)
			}
			continue
		}
		fp = fp.Over(e.fp)
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
// change between the snapshot and the first fingerprint. updatedAt is compared with the
// snapshot's own, both on GitHub's clock: the watcher's clock may differ from GitHub's. Only a
// snapshot without one (a Source that does not read it) is compared with the update's time. What
// moves no timestamp (a thread resolved, a check starting or completing) is compared as the
// snapshot would print it: a published snapshot (pr_monitor_start's) that a channel or a task
// waits on is not re-read otherwise until the safety refresh.
func contradicts(fp ghclient.Fingerprint, u Update) bool {
	s := u.Snapshot
	if s == nil {
		return true
	}
	updated := fp.UpdatedAt.After(u.At)
	if !s.UpdatedAt.IsZero() {
		updated = fp.UpdatedAt.After(s.UpdatedAt)
	}
	return fp.Missing || updated || fp.HeadOID != s.HeadOID || fp.State != string(s.State) ||
		fp.IsDraft != s.IsDraft || fp.Mergeable != string(s.Mergeable) ||
		fp.MergeStateStatus != s.MergeStateStatus || fp.ReviewDecision != s.ReviewDecision ||
		(s.BaseOID != "" && fp.BaseOID != s.BaseOID) ||
		(fp.Threads != "" && fp.Threads != ghclient.SnapshotThreadsPrint(s)) ||
		(fp.Checks != "" && fp.Checks != ghclient.SnapshotChecksPrint(s))
}

// chargeLocked counts a request against the budget as GitHub counted it: what its answer says it
// cost, and each attempt that timed out at the expected cost (GitHub counts timeouts against the
// primary limit, https://github.blog/changelog/2025-07-21-including-timeouts-in-primary-rate-limits).
// A request the gate held back before any attempt went costs nothing; one that failed otherwise at
// least a point.
func (w *Watcher) chargeLocked(now time.Time, err error, rl prstatus.RateLimit, log *ghclient.RequestLog, expected float64) {
	timedOut := log.TimedOut() * max(int(math.Ceil(expected)), 1)
	var held *ghclient.RateLimitError
	switch {
	case err == nil:
		w.gov.charge(now, max(rl.Cost, 1)+timedOut)
		w.observeLocked(rl)
	case errors.As(err, &held) && held.HeldBack && log.Sent() == 0:
		// Not sent: the gate held it.
	default:
		w.gov.charge(now, max(timedOut, 1))
	}
}
