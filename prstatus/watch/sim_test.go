package watch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// sim drives a watcher against the fake GitHub on the fake's clock: a discrete-event simulation.
// Nothing sleeps: the clock jumps to the watcher's next wake-up and the watcher does what is due.
type sim struct {
	tb   testing.TB
	f    *githubfake.Fake
	c    *ghclient.Client
	src  *countingSource
	w    *Watcher
	next time.Time
}

// countingSource counts the watcher's requests and the points GitHub charged them, and how many
// were in flight at once.
type countingSource struct {
	Source
	mu                  sync.Mutex
	batches, snapshots  int
	asks                int
	points              int
	inFlight, maxFlight int
	batchTimes          []time.Time
	snapshotRefs        []prstatus.PRRef
	snapshotTimes       []time.Time
	now                 func() time.Time
}

func (c *countingSource) enter() {
	c.mu.Lock()
	c.inFlight++
	c.maxFlight = max(c.maxFlight, c.inFlight)
	c.mu.Unlock()
}

func (c *countingSource) Fingerprints(ctx context.Context, refs []prstatus.PRRef) (ghclient.FingerprintBatch, error) {
	c.enter()
	b, err := c.Source.Fingerprints(ctx, refs)
	return c.batched(b, err)
}

func (c *countingSource) FingerprintsOf(ctx context.Context, reqs []ghclient.FingerprintRequest) (ghclient.FingerprintBatch, error) {
	c.enter()
	b, err := c.Source.(Looker).FingerprintsOf(ctx, reqs)
	return c.batched(b, err)
}

func (c *countingSource) AskMergeability(ctx context.Context, ref prstatus.PRRef) (prstatus.Mergeable, error) {
	c.mu.Lock()
	c.asks++
	c.mu.Unlock()
	return c.Source.(MergeabilityAsker).AskMergeability(ctx, ref)
}

// batched counts a fingerprint batch that came back.
func (c *countingSource) batched(b ghclient.FingerprintBatch, err error) (ghclient.FingerprintBatch, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	c.batches++
	c.points += b.RateLimit.Cost
	c.batchTimes = append(c.batchTimes, c.now())
	return b, err
}

func (c *countingSource) Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	c.enter()
	s, err := c.Source.Snapshot(ctx, ref)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inFlight--
	c.snapshots++
	c.snapshotRefs = append(c.snapshotRefs, ref)
	c.snapshotTimes = append(c.snapshotTimes, c.now())
	if s != nil {
		c.points += s.RateLimit.Cost
	}
	return s, err
}

func (c *countingSource) Gate() *ghclient.Gate { return c.Source.(Gated).Gate() }

func (c *countingSource) counts() (batches, snapshots, points int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.batches, c.snapshots, c.points
}

// newSim makes a fake GitHub (with opts), a client on its clock and a watcher (cfg's Connect and
// Rand are set here, and Now unless cfg has one; Rand is 0.5, so the jitter is half of Jitter
// every time).
func newSim(tb testing.TB, cfg Config, opts ...githubfake.Option) *sim {
	tb.Helper()
	f := githubfake.MustNew(append([]githubfake.Option{githubfake.WithViewer("dev"), githubfake.WithToken("t")}, opts...)...)
	c, err := ghclient.New(ghclient.Config{
		RESTURL: "https://api.github.invalid", Transport: f.HTTPClient().Transport, Token: ghclient.NewToken("t"),
		Now: f.Now, Sleep: func(ctx context.Context, d time.Duration) error { f.Advance(d); return ctx.Err() },
		Jitter: func(time.Duration) time.Duration { return 0 },
	})
	require.NoError(tb, err)
	src := &countingSource{Source: c, now: f.Now}
	cfg.Connect = func(context.Context) (Source, error) { return src, nil }
	if cfg.Now == nil {
		cfg.Now = f.Now
	}
	cfg.Rand = func() float64 { return 0.5 }
	w, err := New(cfg)
	require.NoError(tb, err)
	return &sim{tb: tb, f: f, c: c, src: src, w: w, next: f.Now()}
}

// open opens a pull request on the fake with events and watches it.
func (s *sim) open(ref prstatus.PRRef, events ...githubfake.Event) {
	s.tb.Helper()
	require.NoError(s.tb, s.f.Apply(githubfake.Ref(ref), append([]githubfake.Event{githubfake.OpenPR{Title: "t"}}, events...)...))
	s.w.Add(ref)
	s.next = s.f.Now()
}

// apply changes a pull request on the fake now.
func (s *sim) apply(ref prstatus.PRRef, events ...githubfake.Event) {
	s.tb.Helper()
	require.NoError(s.tb, s.f.Apply(githubfake.Ref(ref), events...))
}

// step advances the clock to the watcher's next wake-up (never past until) and runs what is
// due; it returns false when until came first.
func (s *sim) step(until time.Time) bool {
	if !s.next.Before(until) {
		s.advanceTo(until)
		return false
	}
	s.advanceTo(s.next)
	s.next = s.w.tick(context.Background())
	return true
}

func (s *sim) advanceTo(t time.Time) {
	if d := t.Sub(s.f.Now()); d > 0 {
		s.f.Advance(d)
	}
}

// runFor runs the watcher for d of fake time.
func (s *sim) runFor(d time.Duration) {
	until := s.f.Now().Add(d)
	for s.step(until) {
	}
}

// waitUpdate runs until ref has an update newer than after, or until limit passes; ok is false
// when none came.
func (s *sim) waitUpdate(ref prstatus.PRRef, after uint64, limit time.Duration) (Update, bool) {
	until := s.f.Now().Add(limit)
	for {
		if u, ok := s.w.Latest(ref); ok && u.Seq > after {
			return u, true
		}
		if !s.step(until) {
			return Update{}, false
		}
	}
}
