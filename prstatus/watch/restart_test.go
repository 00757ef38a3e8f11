package watch

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// memSeen is a SeenStore in memory that merges like the state directory's.
type memSeen struct {
	mu    sync.Mutex
	saved map[prstatus.PRRef]Seen
	saves int
	err   error // LoadSeen's error
}

func (m *memSeen) LoadSeen() (map[prstatus.PRRef]Seen, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	return maps.Clone(m.saved), nil
}

func (m *memSeen) SaveSeen(seen map[prstatus.PRRef]Seen) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.saved == nil {
		m.saved = map[prstatus.PRRef]Seen{}
	}
	maps.Copy(m.saved, seen)
	m.saves++
	return nil
}

// restart stops s's watcher (it saves, as Run does when its context ends) and starts another on
// the same fake GitHub and clock, after down of fake time, with cfg (Seen is the store to resume
// from). The new watcher is handed refs, as the server resumes its monitors; its requests are
// counted afresh.
func (s *sim) restart(cfg Config, down time.Duration, refs []prstatus.PRRef) *sim {
	s.tb.Helper()
	s.w.save()
	s.f.Advance(down)
	src := &countingSource{Source: s.c, now: s.f.Now}
	cfg.Connect = func(context.Context) (Source, error) { return src, nil }
	cfg.Now = s.f.Now
	cfg.Rand = func() float64 { return 0.5 }
	w, err := New(cfg)
	require.NoError(s.tb, err)
	for _, r := range refs {
		w.Add(r)
	}
	return &sim{tb: s.tb, f: s.f, c: s.c, src: src, w: w, next: s.f.Now()}
}

// startPublished opens n pull requests on a watcher saving to seen, each with the snapshot
// pr_monitor_start hands in, and runs it for ran.
func startPublished(tb testing.TB, seen *memSeen, n int, ran time.Duration) (*sim, []prstatus.PRRef) {
	tb.Helper()
	s := newSim(tb, Config{Seen: seen})
	refs := loadRefs(n)
	for _, r := range refs {
		s.open(r)
		snap, err := s.c.Snapshot(context.Background(), r)
		require.NoError(tb, err)
		s.w.Publish(r, snap)
	}
	s.runFor(ran)
	return s, refs
}

func TestARestartedWatcherWithAHundredUnchangedPullRequestsOnlyLooksForChangesAndStaysUnder600Points(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: a few seconds")
	}
	seen := &memSeen{}
	before, refs := startPublished(t, seen, 100, 10*time.Minute)
	readBefore := before.f.Now().Add(-10 * time.Minute) // every pull request was read then
	s := before.restart(Config{Seen: seen}, 5*time.Minute, refs)
	start := s.f.Now()

	s.runFor(time.Hour)

	batches, snapshots, points := s.src.counts()
	t.Logf("first hour after the restart: %d batches, %d snapshots, %d points", batches, snapshots, points)
	assert.LessOrEqual(t, points, 600)
	// No first reads: the only snapshots are safety refreshes, and none falls due before half
	// of SafetyRefresh after the saved read.
	refreshFrom := readBefore.Add(DefaultSafetyRefresh / 2)
	require.False(t, refreshFrom.Before(start.Add(45*time.Minute)))
	s.src.mu.Lock()
	for _, at := range s.src.snapshotTimes {
		assert.False(t, at.Before(refreshFrom), "a snapshot %s after the restart", at.Sub(start))
	}
	s.src.mu.Unlock()
	assert.LessOrEqual(t, snapshots, 15, "safety refreshes only, one every SafetyRefresh/100")
	for _, r := range refs {
		if u, ok := s.w.Latest(r); ok {
			assert.Equal(t, CauseRefresh, u.Cause, "%s", r)
		}
	}
	assert.Positive(t, batches)
}

func TestAPullRequestThatChangedWhileTheServerWasDownIsReadAtOnceAfterARestart(t *testing.T) {
	seen := &memSeen{}
	before, refs := startPublished(t, seen, 3, 5*time.Minute)
	moved := refs[1]
	before.apply(moved, githubfake.Push{Commits: githubfake.Commits(1, "fix while down")})
	fresh := prstatus.PRRef{Owner: "acme", Repo: "new", Number: 9} // nothing saved of it
	require.NoError(t, before.f.Apply(githubfake.Ref(fresh), githubfake.OpenPR{Title: "t"}))

	s := before.restart(Config{Seen: seen}, 10*time.Minute, append(refs, fresh))
	start := s.f.Now()
	u, ok := s.waitUpdate(moved, 0, 15*time.Second)
	require.True(t, ok, "the pull request that moved while the server was down is read at once")
	assert.Contains(t, u.Cause, "headRefOid")
	assert.Equal(t, s.f.PR(githubfake.Ref(moved)).HeadOID(), u.Snapshot.HeadOID)
	assert.Less(t, u.At.Sub(start), 15*time.Second)

	s.runFor(10 * time.Minute)
	u, ok = s.w.Latest(fresh)
	require.True(t, ok, "a pull request with nothing saved gets its first read")
	assert.Equal(t, CauseFirst, u.Cause)
	for _, r := range []prstatus.PRRef{refs[0], refs[2]} {
		_, ok := s.w.Latest(r)
		assert.False(t, ok, "%s did not move: no read", r)
	}
	s.src.mu.Lock()
	read := map[prstatus.PRRef]bool{}
	for _, r := range s.src.snapshotRefs {
		read[r] = true
	}
	s.src.mu.Unlock()
	assert.Equal(t, map[prstatus.PRRef]bool{moved: true, fresh: true}, read,
		"only the moved pull request (then its follow-up) and the new one are read")

	// When the watcher read it before the restart is known: a monitor whose state is older pokes.
	at, ok := s.w.LastRead(refs[0])
	require.True(t, ok)
	assert.True(t, at.Before(start))
	_, ok = s.w.LastRead(prstatus.PRRef{Owner: "acme", Repo: "none", Number: 1})
	assert.False(t, ok)

	// A waiting call that pokes an unchanged pull request gets it read at once.
	s.w.Poke(refs[0])
	u, ok = s.waitUpdate(refs[0], 0, time.Second)
	require.True(t, ok)
	assert.Equal(t, CausePoke, u.Cause)
}

func TestARestartWithAThousandPullRequestsReadsOnlyTheChangedOnes(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1,000 pull requests on the fake: a few seconds, a minute under the race detector")
	}
	seen := &memSeen{}
	before, refs := startPublished(t, seen, 1000, 5*time.Minute)
	changed := map[prstatus.PRRef]bool{}
	for i := range 25 { // spread over the repositories and the batches
		r := refs[i*41%len(refs)]
		before.apply(r, githubfake.CommentReview(alice, "A remark made while the server was down."))
		changed[r] = true
	}
	s := before.restart(Config{Seen: seen}, 10*time.Minute, refs)
	start := s.f.Now()

	s.runFor(40 * time.Minute)

	batches, snapshots, points := s.src.counts()
	t.Logf("40 minutes after the restart: %d batches, %d snapshots, %d points", batches, snapshots, points)
	s.src.mu.Lock()
	read := map[prstatus.PRRef]time.Time{} // the first read of each
	reads := map[prstatus.PRRef]int{}
	for i, r := range s.src.snapshotRefs {
		if _, ok := read[r]; !ok {
			read[r] = s.src.snapshotTimes[i]
		}
		reads[r]++
	}
	s.src.mu.Unlock()
	assert.Len(t, read, len(changed), "only the changed pull requests are read")
	for r, n := range reads {
		assert.LessOrEqual(t, n, 2, "%s: its read and the follow-up HotRefresh later", r)
	}
	assert.LessOrEqual(t, snapshots, 2*len(changed))
	var last time.Duration
	for r := range changed {
		at, ok := read[r]
		if assert.True(t, ok, "%s changed while the server was down", r) {
			last = max(last, at.Sub(start))
		}
	}
	t.Logf("the last changed pull request was read %s after the restart", last)
	assert.Less(t, last, 2*time.Minute, "within the first cycle over 1,000 pull requests (about a minute)")
	assert.LessOrEqual(t, points, 1250)
}

func TestAnUnreadableSavedStateStartsFreshWithAWarning(t *testing.T) {
	var logs bytes.Buffer
	seen := &memSeen{err: errors.New("store: watched.json has schema 99; this build reads 1")}
	s := newSim(t, Config{Seen: seen, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	s.open(testPR)
	u, ok := s.waitUpdate(testPR, 0, time.Second)
	require.True(t, ok)
	assert.Equal(t, CauseFirst, u.Cause)
	assert.Contains(t, logs.String(), "schema 99")
	assert.Contains(t, logs.String(), "level=WARN")
}

func TestWhatTheWatcherSawIsSavedEveryFewBusyWakeUpsAndOnStop(t *testing.T) {
	seen := &memSeen{}
	s := newSim(t, Config{Seen: seen})
	s.open(testPR)
	s.runFor(time.Second)
	assert.Zero(t, seen.saves, "not on every wake-up")
	s.runFor(5 * time.Minute)
	assert.Positive(t, seen.saves, "every few busy wake-ups")
	sv, ok := seen.saved[testPR]
	require.True(t, ok)
	assert.Equal(t, s.f.PR(githubfake.Ref(testPR)).HeadOID(), sv.Fingerprint.HeadOID)

	// Nothing read since: nothing to save.
	n := seen.saves
	s.runFor(5 * time.Minute)
	assert.Equal(t, n, seen.saves)

	// A change read is saved when Run stops.
	s.apply(testPR, githubfake.Push{Commits: githubfake.Commits(1, "more")})
	u, _ := s.w.Latest(testPR)
	_, ok = s.waitUpdate(testPR, u.Seq, 15*time.Second)
	require.True(t, ok)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.NoError(t, s.w.Run(ctx))
	assert.Equal(t, s.f.PR(githubfake.Ref(testPR)).HeadOID(), seen.saved[testPR].Fingerprint.HeadOID)
}

func TestAFingerprintWhoseReadIsStillPendingIsNeverSaved(t *testing.T) {
	s := newSim(t, Config{Seen: &memSeen{}})
	s.open(testPR)
	s.runFor(time.Minute)
	seenNow := func() Seen {
		s.w.mu.Lock()
		defer s.w.mu.Unlock()
		return s.w.seenLocked()[testPR]
	}
	old := s.f.PR(githubfake.Ref(testPR)).HeadOID()
	require.Equal(t, old, seenNow().Fingerprint.HeadOID, "the first read is vouched for once a fingerprint agrees")

	// The push is seen by a batch, but its read has not come back yet: a restart now must read it.
	s.apply(testPR, githubfake.Push{Commits: githubfake.Commits(1, "new")})
	s.w.mu.Lock()
	s.w.nextFP = time.Time{}
	batch := s.w.pickBatchLocked(s.f.Now())
	s.w.mu.Unlock()
	s.w.runBatch(context.Background(), s.src, batch, s.f.Now())
	assert.Equal(t, old, seenNow().Fingerprint.HeadOID)

	u, _ := s.w.Latest(testPR)
	_, ok := s.waitUpdate(testPR, u.Seq, 15*time.Second)
	require.True(t, ok)
	assert.Equal(t, s.f.PR(githubfake.Ref(testPR)).HeadOID(), seenNow().Fingerprint.HeadOID, "read: vouched for")
}
