package watch

import (
	"context"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// What GitHub computes late (docs/watcher.md): mergeability, which reads UNKNOWN until GitHub has
// computed it, and checks, which register a moment after a push.
//
// UNKNOWN decides nothing (prstatus.Derive). The watcher looks again at such a pull request in
// every batch (a few seconds apart, for at most HotWindow), and when two looks still read it
// UNKNOWN MergeableAsk after it was first seen on that head and base tip, asks GitHub once to
// compute it (MergeabilityAsker: a REST GET of the pull request, which starts the computation).
// The next look sees the result move the fingerprint, and a snapshot follows.
//
// A head with no check at all, on a base branch that requires none, is waited on for a grace after
// its push (prstatus.ChecksGraceEnd): Derive says "waiting for checks to register". A check that
// registers moves the fingerprint; when none does, nothing on GitHub moves either, so the watcher
// publishes its last snapshot again when the grace ends (CauseGrace), and the waiting call derives
// a green head from it.

// CauseGrace is the Cause of the update that publishes a snapshot again when the grace for checks
// to register on its head ends.
const CauseGrace = "checks grace over"

// noteMergeableLocked follows the UNKNOWN episodes of a pull request: one starts when
// mergeability is first seen UNKNOWN on a head and base tip, and ends when GitHub has computed it.
// look says a fingerprint read it (a snapshot's read is no look again).
func (w *Watcher) noteMergeableLocked(e *entry, mergeable, head, tip string, now time.Time, look bool) {
	if mergeable != string(prstatus.MergeableUnknown) {
		e.unknown = unknownEpisode{}
		return
	}
	if u := e.unknown; u.since.IsZero() || u.head != head || u.tip != tip {
		e.unknown = unknownEpisode{since: now, head: head, tip: tip}
	}
	if look {
		e.unknown.looks++
	}
}

// unknownLooks is how many looks must read mergeability UNKNOWN before GitHub is asked.
const unknownLooks = 2

// askDueLocked is when GitHub should be asked to compute the entry's mergeability (zero: not
// yet, or never).
func (w *Watcher) askDueLocked(e *entry) time.Time {
	if e.unknown.since.IsZero() || e.unknown.asked || e.unknown.looks < unknownLooks {
		return time.Time{}
	}
	return e.unknown.since.Add(w.cfg.MergeableAsk)
}

// askMergeability asks GitHub to compute the mergeability of every pull request whose UNKNOWN
// lasted MergeableAsk, once an episode. The request is a REST one: it costs no GraphQL point.
func (w *Watcher) askMergeability(ctx context.Context, src Source, now time.Time) {
	asker, ok := src.(MergeabilityAsker)
	if !ok {
		return
	}
	w.mu.Lock()
	var due []prstatus.PRRef
	for _, r := range w.sortedLocked() {
		e := w.prs[r]
		if at := w.askDueLocked(e); !at.IsZero() && !now.Before(at) {
			e.unknown.asked = true
			due = append(due, r)
		}
	}
	w.mu.Unlock()
	for _, r := range due {
		w.mu.Lock()
		w.inFlight++
		w.mu.Unlock()
		m, err := asker.AskMergeability(ctx, r)
		w.mu.Lock()
		w.inFlight--
		w.mu.Unlock()
		if err != nil {
			w.cfg.Logger.Debug("asking GitHub to compute mergeability failed", "pr", r.String(), "err", fmt.Errorf("watch: %w", err))
			continue
		}
		w.cfg.Logger.Debug("asked GitHub to compute mergeability", "pr", r.String(), "mergeable", string(m))
	}
}

// noteGraceLocked remembers when the checks grace of a snapshot just published ends.
func (w *Watcher) noteGraceLocked(e *entry, s *prstatus.Snapshot, now time.Time) {
	e.graceEnd = time.Time{}
	if end, ok := prstatus.ChecksGraceEnd(s, now, w.cfg.ChecksGrace); ok {
		e.graceEnd = end
	}
}

// endGracesLocked publishes again the snapshot of each pull request whose checks grace ended
// with nothing new since.
func (w *Watcher) endGracesLocked(now time.Time) {
	for _, r := range w.sortedLocked() {
		e := w.prs[r]
		if e.graceEnd.IsZero() || now.Before(e.graceEnd) {
			continue
		}
		e.graceEnd = time.Time{}
		if e.has && e.upd.Err == nil && e.upd.Snapshot != nil && e.upd.Snapshot == e.good {
			w.publishLocked(r, e, Update{Snapshot: e.good, At: now, Cause: CauseGrace})
		}
	}
}
