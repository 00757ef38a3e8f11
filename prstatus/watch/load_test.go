package watch

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The load test and the benchmarks run the watcher against the fake GitHub on the fake clock (a
// discrete-event simulation: no sleeping, no wall-clock timing). Points are what the fake charged
// by GitHub's formula, read from each response's rateLimit.cost.

// loadPlan is one simulated run.
type loadPlan struct {
	prs   int
	hours int
	// events is how many events (a comment review or a push, alternately) land on random pull
	// requests at random times of each hour after the first.
	events int
	seed   uint64
	// published: every pull request starts with a snapshot handed to the watcher (Publish), as
	// pr_monitor_start does; otherwise each needs a first read, as after a restart.
	published bool
	// threads: every pull request is under review, with one unresolved thread.
	threads bool
	// failing: every pull request's CI failed (its check counts are read in every look).
	failing bool
	// resolves is how many threads are resolved (or unresolved again) on random pull requests
	// each hour after the first; their latencies are measured apart (threads is implied).
	resolves int
}

type loadResult struct {
	pointsByHour, requestsByHour []int
	latencies                    []time.Duration
	resolveLatencies             []time.Duration
	maxInFlight                  int
	minBatchGap                  time.Duration
	cycle                        time.Duration
	unpublished                  int // events with no update by the end
	read                         int // pull requests with a snapshot by the end
}

func (r loadResult) meanLatency() time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	var sum time.Duration
	for _, l := range r.latencies {
		sum += l
	}
	return sum / time.Duration(len(r.latencies))
}

func (r loadResult) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	l := append([]time.Duration(nil), r.latencies...)
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[min(int(p*float64(len(l))), len(l)-1)]
}

func loadRefs(n int) []prstatus.PRRef {
	refs := make([]prstatus.PRRef, n)
	for i := range refs {
		refs[i] = prstatus.PRRef{Owner: "acme", Repo: fmt.Sprintf("repo%02d", i%20), Number: 1 + i}
	}
	return refs
}

// runLoad runs plan with the default settings and measures it.
func runLoad(tb testing.TB, plan loadPlan) loadResult {
	tb.Helper()
	s := newSim(tb, Config{})
	refs := loadRefs(plan.prs)
	var setup []githubfake.Event
	if plan.threads || plan.resolves > 0 {
		setup = append(setup, githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "nil?"}))
	}
	if plan.failing {
		setup = append(setup, githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure})
	}
	for _, r := range refs {
		s.open(r, setup...)
		if plan.published {
			snap, err := s.c.Snapshot(context.Background(), r)
			require.NoError(tb, err)
			s.w.Publish(r, snap)
		}
	}
	rng := rand.New(rand.NewPCG(plan.seed, 1))
	start := s.f.Now()
	type pending struct {
		ref     prstatus.PRRef
		at      time.Time
		after   uint64
		ev      githubfake.Event
		resolve bool
	}
	var plannedEvents []pending
	for h := 1; h < plan.hours; h++ {
		for i := range plan.events {
			at := start.Add(time.Duration(h)*time.Hour + time.Duration(rng.Int64N(int64(time.Hour))))
			var ev githubfake.Event = githubfake.CommentReview(alice, fmt.Sprintf("Remark %d.", i))
			if i%2 == 1 {
				ev = githubfake.Push{Commits: githubfake.Commits(1, fmt.Sprintf("fix%d", i))}
			}
			plannedEvents = append(plannedEvents, pending{ref: refs[rng.IntN(len(refs))], at: at, ev: ev})
		}
		for range plan.resolves {
			at := start.Add(time.Duration(h)*time.Hour + time.Duration(rng.Int64N(int64(time.Hour))))
			plannedEvents = append(plannedEvents, pending{ref: refs[rng.IntN(len(refs))], at: at, resolve: true})
		}
	}
	sort.Slice(plannedEvents, func(i, j int) bool { return plannedEvents[i].at.Before(plannedEvents[j].at) })

	var res loadResult
	var waiting []pending
	resolved := map[prstatus.PRRef]bool{}
	hourEnd := start.Add(time.Hour)
	lastPoints, lastRequests := 0, 0
	check := func() {
		kept := waiting[:0]
		for _, p := range waiting {
			if u, ok := s.w.Latest(p.ref); ok && u.Seq > p.after {
				if p.resolve {
					res.resolveLatencies = append(res.resolveLatencies, u.At.Sub(p.at))
				} else {
					res.latencies = append(res.latencies, u.At.Sub(p.at))
				}
				continue
			}
			kept = append(kept, p)
		}
		waiting = kept
	}
	end := start.Add(time.Duration(plan.hours) * time.Hour)
	for s.f.Now().Before(end) {
		until := hourEnd
		if len(plannedEvents) > 0 && plannedEvents[0].at.Before(until) {
			until = plannedEvents[0].at
		}
		if s.step(until) {
			check()
			continue
		}
		// until came: an event or the end of an hour.
		if len(plannedEvents) > 0 && !plannedEvents[0].at.After(s.f.Now()) {
			p := plannedEvents[0]
			plannedEvents = plannedEvents[1:]
			u, _ := s.w.Latest(p.ref)
			p.after = u.Seq
			if p.resolve {
				p.ev = githubfake.ThreadResolved{Thread: 0, By: alice}
				if resolved[p.ref] {
					p.ev = githubfake.ThreadUnresolved{Thread: 0, By: alice}
				}
				resolved[p.ref] = !resolved[p.ref]
			}
			require.NoError(tb, s.f.Apply(githubfake.Ref(p.ref), p.ev))
			waiting = append(waiting, p)
			continue
		}
		b, sn, pts := s.src.counts()
		res.pointsByHour = append(res.pointsByHour, pts-lastPoints)
		res.requestsByHour = append(res.requestsByHour, b+sn-lastRequests)
		lastPoints, lastRequests = pts, b+sn
		hourEnd = hourEnd.Add(time.Hour)
	}
	// Events of the last minutes get the time to be caught (not counted in any hour).
	for grace := s.f.Now().Add(10 * time.Minute); len(waiting) > 0 && s.step(grace); {
		check()
	}
	s.src.mu.Lock()
	res.maxInFlight = s.src.maxFlight
	res.minBatchGap = time.Hour
	for i := 1; i < len(s.src.batchTimes); i++ {
		res.minBatchGap = min(res.minBatchGap, s.src.batchTimes[i].Sub(s.src.batchTimes[i-1]))
	}
	s.src.mu.Unlock()
	res.cycle = s.w.Stats().Cycle
	res.unpublished = len(waiting)
	for _, r := range refs {
		if u, ok := s.w.Latest(r); ok && u.Snapshot != nil {
			res.read++
		}
	}
	return res
}

// skipLoad skips a load test under -short and under the race detector. A load test plays hours
// of a hundred or a thousand pull requests on the simulated clock: CPU-bound, about a minute on a
// quiet machine, ten times that under -race, more on a loaded machine, so under -race it would
// only hit go test's timeout. The race detector checks the same code in the watcher's other
// tests; .ci/run runs the load tests without it (go test -run TestLoad ./prstatus/watch/).
func skipLoad(t *testing.T) {
	t.Helper()
	switch {
	case testing.Short():
		t.Skip("load test: about a minute")
	case raceEnabled:
		t.Skip("load test: run without -race (go test -run TestLoad ./prstatus/watch/); under the race detector its simulated hours take ten minutes")
	}
}

func TestLoadAHundredQuietPullRequestsStayUnder600PointsAnHour(t *testing.T) {
	skipLoad(t)
	res := runLoad(t, loadPlan{prs: 100, hours: 3})
	assert.Zero(t, res.unpublished)
	t.Logf("points by hour %v, requests by hour %v, cycle %s", res.pointsByHour, res.requestsByHour, res.cycle)
	for h, p := range res.pointsByHour[1:] {
		assert.LessOrEqual(t, p, 600, "hour %d", h+2)
	}
	assert.LessOrEqual(t, res.maxInFlight, DefaultMaxInFlight)
	assert.GreaterOrEqual(t, res.minBatchGap, DefaultJitter, "no two batches within the jitter window")
}

func TestLoadAThousandPullRequestsStayWithinAQuarterOfTheHour(t *testing.T) {
	skipLoad(t)
	for _, tt := range []struct {
		name string
		plan loadPlan
	}{
		{"started (published snapshots)", loadPlan{prs: 1000, hours: 2, events: 60, seed: 7, published: true}},
		{"resumed (a first read each)", loadPlan{prs: 1000, hours: 2, seed: 7}},
	} {
		res := runLoad(t, tt.plan)
		t.Logf("%s: points by hour %v, requests by hour %v, cycle %s, mean latency %s over %d events, %d unpublished, %d of %d read",
			tt.name, res.pointsByHour, res.requestsByHour, res.cycle, res.meanLatency(), len(res.latencies), res.unpublished, res.read, tt.plan.prs)
		for h, p := range res.pointsByHour {
			assert.LessOrEqual(t, p, 1250, "%s: hour %d", tt.name, h+1)
		}
		assert.Zero(t, res.unpublished, tt.name)
		assert.LessOrEqual(t, res.maxInFlight, DefaultMaxInFlight)
		assert.GreaterOrEqual(t, res.minBatchGap, DefaultJitter, "no two batches within the jitter window")
	}
}

func TestLoadAnEventReachesTheWatcherWithinSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: a few seconds")
	}
	for _, tt := range []struct {
		prs  int
		mean time.Duration
	}{{1, 5 * time.Second}, {100, 10 * time.Second}} {
		if tt.prs > 1 && raceEnabled {
			continue // half a minute under the race detector; BenchmarkEventToUpdate reports it
		}
		res := runLoad(t, loadPlan{prs: tt.prs, hours: 2, events: 40, seed: 3})
		t.Logf("%d PRs: %d events, mean %s, p90 %s, max %s (fake clock); points by hour %v",
			tt.prs, len(res.latencies), res.meanLatency(), res.percentile(0.9), res.percentile(1), res.pointsByHour)
		assert.LessOrEqual(t, res.meanLatency(), tt.mean, "%d PRs", tt.prs)
		assert.Zero(t, res.unpublished)
	}
}

// TestLoadAHundredPullRequestsUnderReviewCatchEveryResolveWithinTwoCycles watches 100 pull
// requests under review (a thread each): quiet, they stay under 600 points an hour, as their
// batches read every thread state for 1 point. Threads resolved and unresolved again, which move
// no timestamp on GitHub, are each caught within two cycles. When every pull request also has
// failed CI (its check counts read in every look too: 200 connections), a batch costs 2 points
// and the governor slows the cycle to stay within its share.
func TestLoadAHundredPullRequestsUnderReviewCatchEveryResolveWithinTwoCycles(t *testing.T) {
	skipLoad(t)
	for _, tt := range []struct {
		name      string
		plan      loadPlan
		maxPoints int
	}{
		{"quiet, under review", loadPlan{prs: 100, hours: 3, threads: true}, 600},
		{"under review, 60 resolves and unresolves an hour", loadPlan{prs: 100, hours: 3, resolves: 30, seed: 5}, 1250},
		{"under review, CI failed on every one, 60 resolves an hour", loadPlan{prs: 100, hours: 3, resolves: 30, seed: 5, failing: true}, 1250},
	} {
		res := runLoad(t, tt.plan)
		var worst time.Duration
		for _, l := range res.resolveLatencies {
			worst = max(worst, l)
		}
		t.Logf("%s: points by hour %v, requests by hour %v, cycle %s; %d resolves caught, worst after %s",
			tt.name, res.pointsByHour, res.requestsByHour, res.cycle, len(res.resolveLatencies), worst)
		assert.Zero(t, res.unpublished, tt.name)
		assert.Len(t, res.resolveLatencies, (tt.plan.hours-1)*tt.plan.resolves, tt.name)
		assert.LessOrEqual(t, worst, 2*(res.cycle+DefaultJitter), "%s: every resolve within two cycles", tt.name)
		for h, p := range res.pointsByHour[1:] {
			assert.LessOrEqual(t, p, tt.maxPoints, "%s: hour %d", tt.name, h+2)
		}
	}
}
