package watch

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// ErrNotWatched is Wait's error for a pull request the watcher does not watch (never added, or
// removed while the call waited).
var ErrNotWatched = errors.New("watch: the pull request is not watched")

// Update is the newest thing the watcher knows about one pull request.
type Update struct {
	// Seq orders updates: every published update has a larger Seq than any before it, across all
	// pull requests of the watcher.
	Seq uint64
	// Snapshot is the full snapshot; nil when Err is set.
	Snapshot *prstatus.Snapshot
	// At is when the request of the snapshot was sent (or the error happened; for a published
	// snapshot, when it was handed in), on the watcher's clock (Config.Now). An update caused by
	// a Poke was requested after the Poke: its At is not before the Poke's time on that clock.
	At time.Time
	// Err is the last error reading this pull request (ghclient's typed errors, wrapped).
	Err error
	// Cause says what produced the update: CauseFirst, CausePoke, CausePublished, CauseRefresh,
	// or CauseFingerprint followed by the fields that moved ("fingerprint: headRefOid").
	Cause string
}

// Causes of an Update.
const (
	CauseFirst       = "first"
	CausePoke        = "poke"
	CausePublished   = "published"
	CauseRefresh     = "refresh"
	CauseFingerprint = "fingerprint"
	CauseError       = "error"
	// CauseRecovered: looking for changes failed, works again, and nothing moved: the last good
	// snapshot stands (no read).
	CauseRecovered = "recovered"
)

// Stats is what pr_monitor_status shows of the watcher.
type Stats struct {
	PRs int
	// Cycle is the current time between two looks at the same pull request.
	Cycle time.Duration
	// Budget is the configured share of the hourly points.
	Budget float64
	// PointsThisHour and RequestsThisHour count the watcher's own spend since WindowStart.
	PointsThisHour, RequestsThisHour int
	WindowStart                      time.Time
	// Limit, Remaining and ResetAt are GitHub's GraphQL rate limit as last read.
	Limit, Remaining int
	ResetAt          time.Time
	// HeldUntil is when the token's rate-limit hold ends (zero: none).
	HeldUntil time.Time
	// QuietUntil is when the quiet hours end (zero: not quiet).
	QuietUntil time.Time
	// InFlight is how many of the watcher's requests are under way.
	InFlight int
	// Writes is the token's write pacing (ghclient.Gate.WritePacing): when the next write may go,
	// the content-creating writes of the last minute and hour, and until when a write is held back
	// (zero: none).
	Writes ghclient.WritePacing
}

// Watcher watches pull requests for one token on one GitHub host. It is safe for concurrent use.
type Watcher struct {
	cfg  Config
	kick chan struct{}

	mu   sync.Mutex
	prs  map[prstatus.PRRef]*entry
	seq  uint64
	subs map[int]chan prstatus.PRRef
	nsub int

	src         Source
	nextConnect time.Time

	gov          governor
	lastCold     prstatus.PRRef // the last pull request of the rotation looked at
	nextFP       time.Time      // when the next fingerprint batch may go
	fpPace       fpPace         // how nextFP was computed, to compute it again with GitHub's limit
	nextRefresh  time.Time      // when the next refresh snapshot may go
	nextChanged  time.Time      // when the next paced snapshot of a moved pull request may go
	nextFollowUp time.Time      // when the next follow-up snapshot may go
	running      bool
	inFlight     int
	ticks        int

	saved     map[prstatus.PRRef]Seen // what a watcher saved before a restart, not handed in yet
	seenDirty bool                    // a full read since what was seen was last saved
}

// fpPace is what the last pick of a fingerprint batch computed nextFP from.
type fpPace struct {
	at           time.Time // when the batch was picked (zero: none yet)
	nb           int
	hot, catchUp bool
	jitter       time.Duration
}

// observeLocked takes GitHub's rateLimit from a response (the watcher's own, or a snapshot
// someone else took). When the hourly limit is not the one the next batch was paced with (the
// first response of a watcher that assumed DefaultLimit), the next batch is paced again from
// when the last was picked: a token with a far higher limit gets its short cycle from the first
// cycle on, one with a lower limit slows down at once.
func (w *Watcher) observeLocked(rl prstatus.RateLimit) {
	if !w.gov.observe(rl) || w.fpPace.at.IsZero() {
		return
	}
	p := w.fpPace
	w.nextFP = p.at.Add(w.gov.interval(p.at, p.nb, p.hot, p.catchUp) + p.jitter)
}

// entry is the watcher's state of one pull request.
type entry struct {
	upd     Update
	has     bool
	changed chan struct{} // closed and replaced on every published update

	fp    ghclient.Fingerprint
	hasFP bool
	good  *prstatus.Snapshot // the newest snapshot read without error

	snapAt    time.Time // when the last full snapshot was attempted
	readAt    time.Time // when the last full snapshot was read without error
	readFP    ghclient.Fingerprint
	hasReadFP bool      // readFP is the fingerprint when the snapshot read at readAt was chosen
	changedAt time.Time // when a change was last seen
	followUp  time.Time // when the follow-up snapshot after the last change is due (zero: none)
	want      string    // a snapshot is due: the cause ("" none)
	busy      bool      // a snapshot is in flight

	lookFailed bool // GitHub answered the last batch but not for this one: look again first
	unknown    unknownEpisode
	graceEnd   time.Time // when the checks grace of the published snapshot ends (zero: none)
}

// unknownEpisode is a stretch of mergeability reading UNKNOWN on one head and base tip.
type unknownEpisode struct {
	since     time.Time // when it was first seen (zero: not UNKNOWN)
	head, tip string
	looks     int  // fingerprints that read it UNKNOWN since
	asked     bool // GitHub was asked to compute it (once an episode)
}

// markChanged notes a change seen at now and schedules the follow-up snapshot.
func (e *entry) markChanged(now time.Time, followUp time.Duration) {
	e.changedAt = now
	e.followUp = now.Add(followUp)
}

// New validates cfg and returns a watcher; Run makes it work.
func New(cfg Config) (*Watcher, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	w := &Watcher{
		cfg:  cfg,
		kick: make(chan struct{}, 1),
		prs:  map[prstatus.PRRef]*entry{},
		subs: map[int]chan prstatus.PRRef{},
	}
	w.gov = newGovernor(cfg)
	w.saved = loadSeen(cfg)
	if cfg.Spend != nil {
		sp, ok, err := cfg.Spend.LoadSpend()
		switch {
		case err != nil:
			cfg.Logger.Warn("could not read the watcher's saved spend; counting from zero", "err", err)
		case ok:
			w.gov.restore(sp, cfg.Now())
		}
	}
	return w, nil
}

// Add watches ref (idempotent). A pull request without a snapshot yet gets one soon.
func (w *Watcher) Add(ref prstatus.PRRef) {
	w.mu.Lock()
	if _, ok := w.prs[ref]; !ok {
		w.newEntryLocked(ref, CauseFirst)
	}
	w.mu.Unlock()
	w.wake()
}

// Remove stops watching ref; a call waiting for it gets ErrNotWatched.
func (w *Watcher) Remove(ref prstatus.PRRef) {
	w.mu.Lock()
	e, ok := w.prs[ref]
	if ok {
		delete(w.prs, ref)
		close(e.changed)
	}
	sp := w.spendLocked()
	w.mu.Unlock()
	if ok {
		w.saveSpend(sp)
	}
}

// Poke asks for a full snapshot of ref now (after prmonitor's own work on GitHub, or when the
// monitor's machine wants a fresh look). It is published even if nothing changed. Poke adds ref
// when it is not watched.
func (w *Watcher) Poke(ref prstatus.PRRef) {
	w.mu.Lock()
	e, ok := w.prs[ref]
	if !ok {
		e = w.newEntryLocked(ref, "")
	}
	e.want = CausePoke
	w.mu.Unlock()
	w.wake()
}

// Publish hands the watcher a snapshot someone else took (pr_monitor_start's): it becomes the
// newest Update of ref, which is added when it is not watched.
func (w *Watcher) Publish(ref prstatus.PRRef, s *prstatus.Snapshot) {
	if s == nil {
		return
	}
	w.mu.Lock()
	e, ok := w.prs[ref]
	if !ok {
		e = w.newEntryLocked(ref, "")
	}
	now := w.cfg.Now()
	e.snapAt, e.readAt = now, now
	if e.want == CauseFirst {
		e.want = ""
	}
	e.good = s
	w.observeLocked(s.RateLimit)
	w.noteMergeableLocked(e, string(s.Mergeable), s.HeadOID, s.BaseOID, now, false)
	w.noteGraceLocked(e, s, now)
	w.publishLocked(ref, e, Update{Snapshot: s, At: now, Cause: CausePublished})
	w.mu.Unlock()
	w.wake() // the pace may have changed with the limit the snapshot carries
}

// Latest returns the newest Update of ref; ok is false when there is none yet.
func (w *Watcher) Latest(ref prstatus.PRRef) (Update, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.prs[ref]
	if !ok || !e.has {
		return Update{}, false
	}
	return e.upd, true
}

// LastRead is when ref was last read in full without error, by this watcher or, from its saved
// state (Config.Seen), by one before a restart; ok is false when it is not watched or was never
// read. A resumed monitor whose own state is older than this may have missed the update of that
// read (published while no call took it, just before the restart): it should Poke.
func (w *Watcher) LastRead(ref prstatus.PRRef) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.prs[ref]
	if !ok || e.readAt.IsZero() {
		return time.Time{}, false
	}
	return e.readAt, true
}

// Wait returns the newest Update of ref once its Seq is larger than after: at once if there is
// one, else when it is published. It returns ctx's error when ctx ends first and ErrNotWatched
// when ref is not (or no longer) watched. Waiting holds no goroutine of the watcher.
func (w *Watcher) Wait(ctx context.Context, ref prstatus.PRRef, after uint64) (Update, error) {
	for {
		w.mu.Lock()
		e, ok := w.prs[ref]
		if !ok {
			w.mu.Unlock()
			return Update{}, ErrNotWatched
		}
		if e.has && e.upd.Seq > after {
			u := e.upd
			w.mu.Unlock()
			return u, nil
		}
		ch := e.changed
		w.mu.Unlock()
		select {
		case <-ctx.Done():
			return Update{}, ctx.Err()
		case <-ch:
		}
	}
}

// Subscribe returns a channel that receives a pull request's reference whenever it gets a new
// Update, and a func that unsubscribes. The channel is buffered; a subscriber that does not keep
// up misses references (never updates: Latest has them), and the watcher never blocks on it.
func (w *Watcher) Subscribe() (<-chan prstatus.PRRef, func()) {
	ch := make(chan prstatus.PRRef, 64)
	w.mu.Lock()
	id := w.nsub
	w.nsub++
	w.subs[id] = ch
	w.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			w.mu.Lock()
			delete(w.subs, id)
			w.mu.Unlock()
		})
	}
}

// Stats reports the watcher's pace and spend.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.cfg.Now()
	st := w.gov.stats(now, len(w.prs))
	st.InFlight = w.inFlight
	if g := w.gateLocked(); g != nil {
		if h, ok := g.NotBefore("graphql"); ok {
			st.HeldUntil = h.Until
		}
		st.Writes = g.WritePacing()
	}
	return st
}

// publishLocked makes u the newest update of ref and wakes whoever waits for it.
func (w *Watcher) publishLocked(ref prstatus.PRRef, e *entry, u Update) {
	w.seq++
	u.Seq = w.seq
	e.upd, e.has = u, true
	close(e.changed)
	e.changed = make(chan struct{})
	for _, ch := range w.subs {
		select {
		case ch <- ref:
		default:
		}
	}
}

// publishResult publishes a snapshot's outcome unless it says nothing new (force: always).
func (w *Watcher) publishResult(ref prstatus.PRRef, s *prstatus.Snapshot, err error, at time.Time, cause string, force bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.prs[ref]
	if !ok {
		return false
	}
	e.snapAt = at
	if !e.followUp.IsZero() && !at.Before(e.followUp) {
		e.followUp = time.Time{}
	}
	if err == nil {
		w.noteMergeableLocked(e, string(s.Mergeable), s.HeadOID, s.BaseOID, at, false)
	}
	if !force && e.has {
		switch {
		case err != nil && e.upd.Err != nil && e.upd.Err.Error() == err.Error():
			return false
		case err == nil && e.upd.Snapshot != nil && sameSnapshot(e.upd.Snapshot, s):
			return false
		}
	}
	if err != nil {
		s = nil
	} else {
		if e.good != nil && !sameSnapshot(e.good, s) {
			e.markChanged(at, w.cfg.HotRefresh)
		}
		e.good = s
		w.noteGraceLocked(e, s, w.cfg.Now())
	}
	w.publishLocked(ref, e, Update{Snapshot: s, At: at, Err: err, Cause: cause})
	return true
}

// sameSnapshot reports whether two snapshots say the same, ignoring the rate limit they carry.
func sameSnapshot(a, b *prstatus.Snapshot) bool {
	x, y := *a, *b
	x.RateLimit, y.RateLimit = prstatus.RateLimit{}, prstatus.RateLimit{}
	x.UpdatedAt, y.UpdatedAt = time.Time{}, time.Time{}
	return reflect.DeepEqual(x, y)
}

func (w *Watcher) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *Watcher) gateLocked() *ghclient.Gate {
	if g, ok := w.src.(Gated); ok {
		return g.Gate()
	}
	return nil
}

func (w *Watcher) spendLocked() Spend {
	return w.gov.spend(w.cfg.Now(), len(w.prs))
}

func (w *Watcher) saveSpend(sp Spend) {
	if w.cfg.Spend == nil {
		return
	}
	if err := w.cfg.Spend.SaveSpend(sp); err != nil {
		w.cfg.Logger.Warn("could not save the watcher's spend", "err", err)
	}
}
