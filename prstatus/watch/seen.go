package watch

import (
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// What the watcher has seen of each pull request survives a restart (Config.Seen): the
// fingerprint of its last full read and when that was. A restarted watcher compares the first
// fingerprint batch with it: a pull request whose fingerprint did not move needs no full read
// until a waiting call pokes it, its follow-up or safety refresh falls due (counted from the saved
// read), or its fingerprint moves; one that moved while the server was down is read at once.

// Seen is what the watcher saved of one pull request.
type Seen struct {
	// Fingerprint is the pull request's fingerprint when it was last read in full: the snapshot
	// read then is at least as new as this fingerprint. Never Missing.
	Fingerprint ghclient.Fingerprint
	// ReadAt is when it was last read in full; its safety refresh is counted from it.
	ReadAt time.Time
	// ChangedAt is when a change was last seen (zero: none seen by this watcher); a pull request
	// that changed lately is looked at in every batch.
	ChangedAt time.Time
	// FollowUp is when the follow-up snapshot after the last change is due (zero: none).
	FollowUp time.Time
}

// SeenStore keeps what the watcher has seen across restarts (*store.SeenStore in
// mcpserver/store, the file watched.json). It holds no token.
type SeenStore interface {
	// LoadSeen returns what was saved (an empty map when nothing was). An error makes the
	// watcher start as if nothing was saved: every pull request gets a first read.
	LoadSeen() (map[prstatus.PRRef]Seen, error)
	// SaveSeen saves what the watcher has seen of the pull requests in seen, replacing what was
	// saved of them and keeping the rest (pull requests this watcher has not been handed yet).
	SaveSeen(seen map[prstatus.PRRef]Seen) error
}

// loadSeen reads the saved state once, in New.
func loadSeen(cfg Config) map[prstatus.PRRef]Seen {
	if cfg.Seen == nil {
		return nil
	}
	saved, err := cfg.Seen.LoadSeen()
	if err != nil {
		cfg.Logger.Warn("could not read what the watcher saw before; every pull request gets a first read", "err", err)
		return nil
	}
	return saved
}

// newEntryLocked makes ref's entry, from what a watcher saved before a restart when there is
// something: then the first read waits for the fingerprint to move.
func (w *Watcher) newEntryLocked(ref prstatus.PRRef, want string) *entry {
	e := &entry{changed: make(chan struct{}), want: want}
	w.prs[ref] = e
	sv, ok := w.saved[ref]
	if !ok {
		return e
	}
	delete(w.saved, ref)
	if sv.Fingerprint.Missing || sv.ReadAt.IsZero() {
		return e
	}
	e.fp, e.hasFP = sv.Fingerprint, true
	e.readFP, e.hasReadFP = sv.Fingerprint, true
	e.snapAt, e.readAt = sv.ReadAt, sv.ReadAt
	e.changedAt, e.followUp = sv.ChangedAt, sv.FollowUp
	if e.want == CauseFirst {
		e.want = ""
	}
	return e
}

// seenLocked is what the watcher can vouch for: each pull request read in full whose fingerprint
// at that read is known.
func (w *Watcher) seenLocked() map[prstatus.PRRef]Seen {
	out := make(map[prstatus.PRRef]Seen, len(w.prs))
	for ref, e := range w.prs {
		if !e.hasReadFP || e.readFP.Missing {
			continue
		}
		out[ref] = Seen{Fingerprint: e.readFP, ReadAt: e.readAt, ChangedAt: e.changedAt, FollowUp: e.followUp}
	}
	return out
}

// takeSeenLocked is what to save when something was read since the last save (nil: nothing to
// save).
func (w *Watcher) takeSeenLocked() map[prstatus.PRRef]Seen {
	if w.cfg.Seen == nil || !w.seenDirty {
		return nil
	}
	w.seenDirty = false
	return w.seenLocked()
}

// noteRead records a successful full read of ref whose fingerprint, when the read was chosen,
// was fp (ok false: not known yet).
func (w *Watcher) noteReadLocked(e *entry, fp ghclient.Fingerprint, ok bool, at time.Time) {
	e.readAt = at
	if ok {
		e.readFP, e.hasReadFP = fp, true
	}
	w.seenDirty = true
}

func (w *Watcher) saveSeen(seen map[prstatus.PRRef]Seen) {
	if w.cfg.Seen == nil || seen == nil {
		return
	}
	if err := w.cfg.Seen.SaveSeen(seen); err != nil {
		w.cfg.Logger.Warn("could not save what the watcher has seen", "err", err)
	}
}
