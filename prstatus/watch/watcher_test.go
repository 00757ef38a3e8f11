package watch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestAWaitingCallWakesOnTheFirstUpdate(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	got := make(chan Update, 1)
	go func() {
		u, err := s.w.Wait(t.Context(), testPR, 0)
		assert.NoError(t, err)
		got <- u
	}()
	s.runFor(time.Second)
	select {
	case u := <-got:
		require.NotNil(t, u.Snapshot)
		assert.Equal(t, CauseFirst, u.Cause)
		assert.Equal(t, s.f.PR(githubfake.Ref(testPR)).HeadOID(), u.Snapshot.HeadOID)
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call was not woken")
	}
	// An update it has seen does not wake it again.
	u, _ := s.w.Latest(testPR)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := s.w.Wait(ctx, testPR, u.Seq)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestWaitingForAnUnwatchedOrRemovedPullRequestEnds(t *testing.T) {
	// In a synctest bubble: synctest.Wait returns once the waiting goroutine blocks in Wait.
	synctest.Test(t, func(t *testing.T) {
		s := newSim(t, Config{})
		_, err := s.w.Wait(t.Context(), testPR, 0)
		require.ErrorIs(t, err, ErrNotWatched)

		s.open(testPR)
		s.runFor(time.Second)
		u, _ := s.w.Latest(testPR)
		done := make(chan error, 1)
		go func() {
			_, err := s.w.Wait(t.Context(), testPR, u.Seq)
			done <- err
		}()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("the wait ended before anything happened: %v", err)
		default:
		}
		s.w.Remove(testPR)
		require.ErrorIs(t, <-done, ErrNotWatched, "Remove ends the wait")
	})
}

func TestAPokeReadsThePullRequestAtOnceAndPublishesEvenWhenNothingChanged(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	s.runFor(time.Minute)
	before, _ := s.w.Latest(testPR)
	_, snaps, _ := s.src.counts()

	s.w.Poke(testPR)
	s.next = s.f.Now() // Poke wakes Run; the simulation looks at once
	u, ok := s.waitUpdate(testPR, before.Seq, time.Second)
	require.True(t, ok)
	assert.Equal(t, CausePoke, u.Cause)
	_, snaps2, _ := s.src.counts()
	assert.Equal(t, snaps+1, snaps2)
}

func TestAPublishedSnapshotSparesTheFirstRead(t *testing.T) {
	s := newSim(t, Config{})
	require.NoError(t, s.f.Apply(githubfake.Ref(testPR), githubfake.OpenPR{Title: "t"}))
	snap, err := s.c.Snapshot(t.Context(), testPR)
	require.NoError(t, err)
	s.w.Publish(testPR, snap)
	s.w.Add(testPR)
	u, ok := s.w.Latest(testPR)
	require.True(t, ok)
	assert.Equal(t, CausePublished, u.Cause)

	s.runFor(time.Minute)
	batches, snaps, _ := s.src.counts()
	assert.Positive(t, batches)
	assert.Zero(t, snaps, "the fingerprint agrees with the published snapshot: no read")
	after, _ := s.w.Latest(testPR)
	assert.Equal(t, u.Seq, after.Seq)
}

func TestNothingIsSentWhileTheGateHolds(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	until := s.f.Now().Add(10 * time.Minute)
	s.c.Gate().Hold(ghclient.ScopeToken, until, "secondary rate limit")
	next := s.w.tick(t.Context())
	batches, snaps, _ := s.src.counts()
	assert.Zero(t, batches+snaps)
	assert.False(t, next.Before(until), "the watcher sleeps until the hold ends")
	assert.Equal(t, until, s.w.Stats().HeldUntil)

	s.next = next
	_, ok := s.waitUpdate(testPR, 0, 11*time.Minute)
	assert.True(t, ok, "after the hold, the watcher reads again")
}

func TestTheWatcherNeverSpendsMoreThanItsBudget(t *testing.T) {
	s := newSim(t, Config{Budget: 0.01}) // 50 points an hour
	for _, r := range loadRefs(100) {
		s.open(r)
	}
	last := 0
	for hour := range 3 {
		s.runFor(time.Hour)
		_, _, points := s.src.counts()
		assert.LessOrEqual(t, points-last, 50, "hour %d", hour+1)
		last = points
	}
	u, ok := s.w.Latest(loadRefs(100)[0])
	assert.True(t, ok && u.Err == nil, "first reads still happen, paced within the budget")
}

type memSpend struct {
	mu    sync.Mutex
	saved *Spend
	saves int
}

func (m *memSpend) LoadSpend() (Spend, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.saved == nil {
		return Spend{}, false, nil
	}
	return *m.saved, true, nil
}

func (m *memSpend) SaveSpend(sp Spend) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saved = &sp
	m.saves++
	return nil
}

func TestTheHoursSpendSurvivesARestart(t *testing.T) {
	store := &memSpend{}
	s := newSim(t, Config{Spend: store})
	s.open(testPR)
	s.runFor(10 * time.Minute)
	s.w.Remove(testPR)
	require.NotNil(t, store.saved)
	spent := s.w.Stats().PointsThisHour
	assert.Positive(t, spent)
	assert.Equal(t, spent, store.saved.Points)
	assert.Equal(t, DefaultBudget, store.saved.Budget)

	again, err := New(Config{Spend: store, Now: s.f.Now, Connect: func(context.Context) (Source, error) { return s.src, nil }})
	require.NoError(t, err)
	assert.Equal(t, spent, again.Stats().PointsThisHour, "a restart within the hour keeps counting")

	s.f.Advance(time.Hour)
	later, err := New(Config{Spend: store, Now: s.f.Now, Connect: func(context.Context) (Source, error) { return s.src, nil }})
	require.NoError(t, err)
	assert.Zero(t, later.Stats().PointsThisHour, "a new hour starts from zero")
}

func TestAConnectionFailureReachesTheWaitingCall(t *testing.T) {
	f := githubfake.MustNew()
	noToken := errors.New("no GitHub token")
	w, err := New(Config{Now: f.Now, Connect: func(context.Context) (Source, error) { return nil, noToken }})
	require.NoError(t, err)
	w.Add(testPR)
	next := w.tick(t.Context())
	u, err := w.Wait(t.Context(), testPR, 0)
	require.NoError(t, err)
	require.ErrorIs(t, u.Err, noToken)
	assert.Nil(t, u.Snapshot)
	assert.Equal(t, f.Now().Add(connectBackoff), next, "tried again later")
}

func TestAMissingPullRequestIsReportedOnceNotReadEveryCycle(t *testing.T) {
	s := newSim(t, Config{})
	s.w.Add(testPR) // not on the fake
	u, ok := s.waitUpdate(testPR, 0, time.Minute)
	require.True(t, ok)
	require.ErrorIs(t, u.Err, ghclient.ErrNotFound)
	s.runFor(30 * time.Minute)
	_, snaps, _ := s.src.counts()
	assert.Equal(t, 1, snaps)
	again, _ := s.w.Latest(testPR)
	assert.Equal(t, u.Seq, again.Seq)
}

func TestSubscribersHearOfEveryUpdatedPullRequest(t *testing.T) {
	s := newSim(t, Config{})
	ch, cancel := s.w.Subscribe()
	other := prstatus.PRRef{Owner: "acme", Repo: "gadgets", Number: 1}
	s.open(testPR)
	s.open(other)
	s.runFor(time.Second)
	got := map[prstatus.PRRef]bool{}
	for len(got) < 2 {
		select {
		case r := <-ch:
			got[r] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("heard of %v only", got)
		}
	}
	cancel()
	cancel() // twice is harmless
}

func TestQuietHoursStretchTheCycle(t *testing.T) {
	quietEnd := githubfake.DefaultStart().Add(8 * time.Hour)
	s := newSim(t, Config{Quiet: func(now time.Time) time.Time { return quietEnd }})
	s.open(testPR)
	s.runFor(time.Minute)
	st := s.w.Stats()
	assert.Equal(t, DefaultMaxCycle, st.Cycle)
	assert.Equal(t, quietEnd, st.QuietUntil)

	s.runFor(5 * time.Hour)
	batches, snaps, _ := s.src.counts()
	assert.Equal(t, 1, snaps, "no safety refresh in quiet hours")
	assert.InDelta(t, 5*60/5, batches, 3, "one look every MaxCycle")

	s.apply(testPR, githubfake.Push{Commits: githubfake.Commits(1, "fix")})
	last, _ := s.w.Latest(testPR)
	u, ok := s.waitUpdate(testPR, last.Seq, DefaultMaxCycle+DefaultJitter)
	require.True(t, ok, "a change is still caught, a cycle later")
	assert.Contains(t, u.Cause, "headRefOid")
}

func TestRunStopsWhenTheContextEnds(t *testing.T) {
	store := &memSpend{}
	s := newSim(t, Config{Spend: store})
	s.open(testPR)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.w.Run(ctx) }()
	u, err := s.w.Wait(t.Context(), testPR, 0)
	require.NoError(t, err)
	require.NoError(t, u.Err)
	require.ErrorIs(t, s.w.Run(ctx), ErrRunning)
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
	assert.NotNil(t, store.saved, "the spend is saved on the way out")
}

func TestNewNeedsConnect(t *testing.T) {
	_, err := New(Config{})
	require.ErrorIs(t, err, ErrNoConnect)
}

func TestAFailedLookStandsDownWithoutReReadingWhenNothingMoved(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	s.runFor(prstatus.DefaultChecksGrace + time.Minute) // past the grace for checks to register
	good, _ := s.w.Latest(testPR)
	require.NotNil(t, good.Snapshot)
	_, snaps, _ := s.src.counts()

	s.f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 502}) // every attempt
	failed, ok := s.waitUpdate(testPR, good.Seq, time.Minute)
	require.True(t, ok, "the failure reaches waiting calls")
	require.ErrorIs(t, failed.Err, ghclient.ErrUnavailable)
	assert.Equal(t, CauseError, failed.Cause)
	s.f.ClearFaults()

	back, ok := s.waitUpdate(testPR, failed.Seq, time.Minute)
	require.True(t, ok)
	require.NoError(t, back.Err)
	assert.Equal(t, CauseRecovered, back.Cause)
	assert.Same(t, good.Snapshot, back.Snapshot)
	_, snaps2, _ := s.src.counts()
	assert.Equal(t, snaps, snaps2, "no snapshot was read again")
}

func TestASecondaryRateLimitHoldsTheWholeWatcherUntilGitHubSaid(t *testing.T) {
	s := newSim(t, Config{})
	s.open(testPR)
	s.runFor(prstatus.DefaultChecksGrace + time.Minute) // past the grace for checks to register
	good, _ := s.w.Latest(testPR)
	b0, sn0, _ := s.src.counts()

	s.f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 403, RetryAfter: 10 * time.Minute, Times: 1})
	limited, ok := s.waitUpdate(testPR, good.Seq, time.Minute)
	require.True(t, ok, "the rate limit reaches waiting calls")
	var rl *ghclient.RateLimitError
	require.ErrorAs(t, limited.Err, &rl)
	held := s.w.Stats().HeldUntil
	require.False(t, held.IsZero())

	b1, sn1, _ := s.src.counts()
	s.runFor(held.Sub(s.f.Now()) - time.Second)
	b2, sn2, _ := s.src.counts()
	assert.Equal(t, b1+sn1, b2+sn2, "nothing is sent before the time GitHub named")
	assert.Equal(t, b0+1, b1, "the limited batch was the last request")
	assert.Equal(t, sn0, sn1)

	back, ok := s.waitUpdate(testPR, limited.Seq, time.Minute)
	require.True(t, ok, "after the hold the watcher looks again")
	assert.Equal(t, CauseRecovered, back.Cause)
}

type savedHolds map[string]ghclient.Hold

func (s savedHolds) LoadGate() (map[string]ghclient.Hold, error) { return s, nil }
func (s savedHolds) SaveGate(map[string]ghclient.Hold) error     { return nil }

func TestARestartedWatcherKeepsTheHoldGitHubAskedForBefore(t *testing.T) {
	f := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken("t"))
	require.NoError(t, f.Apply(githubfake.Ref(testPR), githubfake.OpenPR{Title: "t"}))
	until := f.Now().Add(20 * time.Minute)
	gate := ghclient.NewGate(savedHolds{ghclient.ScopeToken: {Until: until, Reason: "secondary rate limit"}}, f.Now, nil)
	c, err := ghclient.New(ghclient.Config{RESTURL: "https://api.github.invalid", Transport: f.HTTPClient().Transport,
		Token: ghclient.NewToken("t"), Now: f.Now, Gate: gate})
	require.NoError(t, err)
	src := &countingSource{Source: c, now: f.Now}
	w, err := New(Config{Now: f.Now, Connect: func(context.Context) (Source, error) { return src, nil }})
	require.NoError(t, err)
	w.Add(testPR)

	next := w.tick(t.Context())
	batches, snaps, _ := src.counts()
	assert.Zero(t, batches+snaps, "nothing is sent before the saved hold ends")
	assert.False(t, next.Before(until))
	f.Advance(next.Sub(f.Now()))
	w.tick(t.Context())
	u, ok := w.Latest(testPR)
	require.True(t, ok)
	assert.NoError(t, u.Err)
}

func TestAWatcherWithNothingToWatchResolvesNoTokenAndSendsNothing(t *testing.T) {
	f := githubfake.MustNew()
	connects := 0
	w, err := New(Config{Now: f.Now, Connect: func(context.Context) (Source, error) {
		connects++
		return nil, errors.New("no token")
	}})
	require.NoError(t, err)
	next := w.tick(t.Context())
	assert.Zero(t, connects)
	assert.Equal(t, f.Now().Add(DefaultMaxCycle), next)
}

// recordingSource answers at once and keeps the references of every fingerprint batch.
type recordingSource struct {
	stubSource
	mu      sync.Mutex
	batches [][]prstatus.PRRef
}

func (r *recordingSource) Fingerprints(ctx context.Context, refs []prstatus.PRRef) (ghclient.FingerprintBatch, error) {
	r.mu.Lock()
	r.batches = append(r.batches, append([]prstatus.PRRef(nil), refs...))
	r.mu.Unlock()
	return r.stubSource.Fingerprints(ctx, refs)
}

func TestEveryPullRequestIsLookedAtEveryCycle(t *testing.T) {
	now := githubfake.DefaultStart()
	src := &recordingSource{}
	w, err := New(Config{MaxBatch: 10, Now: func() time.Time { return now }, Rand: func() float64 { return 0.5 },
		Connect: func(context.Context) (Source, error) { return src, nil }})
	require.NoError(t, err)
	refs := loadRefs(25)
	for _, r := range refs {
		w.Add(r)
	}
	for range 40 { // first reads, then quiet batches
		now = w.tick(t.Context())
	}
	src.mu.Lock()
	defer src.mu.Unlock()
	require.Greater(t, len(src.batches), 6)
	last := src.batches[len(src.batches)-3:]
	seen := map[prstatus.PRRef]bool{}
	for _, b := range last {
		assert.LessOrEqual(t, len(b), 10)
		for _, r := range b {
			seen[r] = true
		}
	}
	assert.Len(t, seen, 25, "three batches of 10 cover 25 pull requests")
	// Three batches of 1 point, at most 625 points an hour for detection: one every 5.76 s.
	assert.Equal(t, 17280*time.Millisecond, w.Stats().Cycle)
}
