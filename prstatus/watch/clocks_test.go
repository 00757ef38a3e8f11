package watch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The watcher's clock, GitHub's clock and GitHub's rate limit: what the watcher learns from
// GitHub replaces what it assumed, and it never compares GitHub's times with its own.

func TestTheFirstCycleFollowsTheRateLimitGitHubReports(t *testing.T) {
	const minCycle, jitter = 200 * time.Millisecond, 10 * time.Millisecond
	tests := []struct {
		name  string
		start func(s *sim)
	}{
		{name: "a first read", start: func(s *sim) { s.open(testPR) }},
		{name: "a published snapshot", start: func(s *sim) {
			require.NoError(t, s.f.Apply(githubfake.Ref(testPR), githubfake.OpenPR{Title: "t"}))
			snap, err := s.c.Snapshot(t.Context(), testPR)
			require.NoError(t, err)
			s.w.Publish(testPR, snap)
			s.w.Add(testPR)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// GitHub's limit is far above the 5,000 points the watcher assumes before it says.
			s := newSim(t, Config{MinCycle: minCycle, Jitter: jitter}, githubfake.WithRateLimit(1<<30))
			tt.start(s)
			s.runFor(3 * time.Second)
			s.src.mu.Lock()
			times := append([]time.Time(nil), s.src.batchTimes...)
			s.src.mu.Unlock()
			require.GreaterOrEqual(t, len(times), 2, "a second batch within 3 s (5.76 s at 5,000 points)")
			assert.LessOrEqual(t, times[1].Sub(times[0]), minCycle+jitter)
			assert.Equal(t, 1<<30, s.w.Stats().Limit)
		})
	}
}

func TestAChangeAfterAPublishedSnapshotIsSeenWhateverTheWatchersClockSays(t *testing.T) {
	tests := []struct {
		name   string
		skew   time.Duration // the watcher's clock minus GitHub's
		change bool
	}{
		{name: "watcher ahead, a review after the snapshot", skew: 5 * time.Minute, change: true},
		{name: "watcher behind, a review after the snapshot", skew: -5 * time.Minute, change: true},
		{name: "same clock, a review after the snapshot", change: true},
		{name: "watcher ahead, nothing after the snapshot", skew: 5 * time.Minute},
		{name: "watcher behind, nothing after the snapshot", skew: -5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f *githubfake.Fake
			s := newSim(t, Config{Now: func() time.Time { return f.Now().Add(tt.skew) }})
			f = s.f
			require.NoError(t, s.f.Apply(githubfake.Ref(testPR), githubfake.OpenPR{Title: "t"}))
			snap, err := s.c.Snapshot(t.Context(), testPR)
			require.NoError(t, err)
			s.f.Advance(time.Minute)
			if tt.change {
				s.apply(testPR, githubfake.CommentReview(alice, "Looks fine."))
			}
			s.w.Publish(testPR, snap)
			s.w.Add(testPR)
			pub, _ := s.w.Latest(testPR)

			for range 3 { // the watcher's clock drives it: tick, then let GitHub's time pass
				s.w.tick(t.Context())
				s.f.Advance(DefaultMinCycle + DefaultJitter)
			}
			batches, snaps, _ := s.src.counts()
			require.Positive(t, batches)
			u, _ := s.w.Latest(testPR)
			if !tt.change {
				assert.Zero(t, snaps, "the fingerprint agrees with the snapshot: no read")
				assert.Equal(t, pub.Seq, u.Seq)
				return
			}
			require.Greater(t, u.Seq, pub.Seq, "the review is read")
			assert.Equal(t, CauseFingerprint+": first look", u.Cause)
			require.NotNil(t, u.Snapshot)
			assert.NotEmpty(t, u.Snapshot.Reviews)
		})
	}
}

// pokingSource takes a moment of the watcher's clock for every fingerprint batch, and the first
// time has a call poke the watcher meanwhile.
type pokingSource struct {
	Source
	f      *githubfake.Fake
	poke   func()
	once   sync.Once
	pokeAt time.Time
}

func (p *pokingSource) Fingerprints(ctx context.Context, refs []prstatus.PRRef) (ghclient.FingerprintBatch, error) {
	b, err := p.Source.Fingerprints(ctx, refs)
	p.f.Advance(2 * time.Second)
	p.once.Do(func() {
		p.pokeAt = p.f.Now()
		p.poke()
		p.f.Advance(time.Second)
	})
	return b, err
}

func TestAPokesSnapshotIsStampedNoEarlierThanThePoke(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	first, ok := s.waitUpdate(testPR, 0, time.Minute)
	require.True(t, ok)

	// A watcher that already read the pull request (its saved state) looks for changes; the poke
	// comes while the batch is under way, and its snapshot goes in the same wake-up.
	src := &pokingSource{Source: s.src, f: s.f}
	w, err := New(Config{Now: s.f.Now, Rand: func() float64 { return 0.5 },
		Connect: func(context.Context) (Source, error) { return src, nil }})
	require.NoError(t, err)
	src.poke = func() { w.Poke(testPR) }
	w.Publish(testPR, first.Snapshot)
	pub, _ := w.Latest(testPR)
	w.tick(t.Context())

	u, ok := w.Latest(testPR)
	require.True(t, ok)
	require.Greater(t, u.Seq, pub.Seq)
	assert.Equal(t, CausePoke, u.Cause)
	assert.False(t, u.At.Before(src.pokeAt), "stamped %s, poked at %s", u.At, src.pokeAt)
	last, ok := w.LastRead(testPR)
	require.True(t, ok)
	assert.Equal(t, u.At, last)
}

// A check that completes between pr_monitor_start's snapshot and the watcher's first look moves no
// timestamp: the first look compares the checks it counts with the snapshot's, so a call that
// never pokes (a channel, a task) is not left with the old snapshot until the safety refresh.
func TestACheckCompletedAfterAPublishedSnapshotIsReadAtTheFirstLook(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change bool
	}{{name: "a check completes after the snapshot", change: true}, {name: "nothing after the snapshot"}} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSim(t, Config{})
			require.NoError(t, s.f.Apply(githubfake.Ref(testPR), githubfake.OpenPR{Title: "t"},
				githubfake.ChecksQueued{Jobs: []string{"build", "lint"}}))
			snap, err := s.c.Snapshot(t.Context(), testPR)
			require.NoError(t, err)
			s.f.Advance(time.Minute)
			if tt.change {
				s.apply(testPR, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionFailure})
			}
			s.w.Publish(testPR, snap)
			s.w.Add(testPR)
			pub, _ := s.w.Latest(testPR)

			for range 3 {
				s.w.tick(t.Context())
				s.f.Advance(DefaultMinCycle + DefaultJitter)
			}
			u, _ := s.w.Latest(testPR)
			_, snaps, _ := s.src.counts()
			if !tt.change {
				assert.Equal(t, pub.Seq, u.Seq, "the checks agree with the snapshot: no read")
				assert.Zero(t, snaps)
				return
			}
			require.Greater(t, u.Seq, pub.Seq, "the completed check is read")
			assert.Equal(t, CauseFingerprint+": first look", u.Cause)
			require.NotNil(t, u.Snapshot)
			assert.Contains(t, checkConclusions(u.Snapshot), "FAILURE")
		})
	}
}

func checkConclusions(s *prstatus.Snapshot) []string {
	var out []string
	for _, c := range s.Checks {
		out = append(out, c.Conclusion)
	}
	return out
}
