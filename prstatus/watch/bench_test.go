package watch

import (
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The benchmarks report what the targets of issue 11 measure, on the fake GitHub and the fake
// clock (docs/benchmarks.md): points and requests an hour, the time from an event to the
// published update, and memory. Run them once each:
//
//	go test -run '^$' -bench . -benchtime 1x ./prstatus/watch/

// BenchmarkQuietPullRequests reports the points and requests an hour of 100 and 1,000 quiet
// pull requests at the default settings, in the last of three hours: started with their
// snapshots published (as pr_monitor_start does), and resumed (each needs a first read, as after
// a restart; its first hour is reported too).
func BenchmarkQuietPullRequests(b *testing.B) {
	for _, tt := range []struct {
		name string
		plan loadPlan
	}{
		{"100PRs", loadPlan{prs: 100, hours: 3, published: true}},
		{"100PRs-under-review", loadPlan{prs: 100, hours: 3, published: true, threads: true}},
		{"100PRs-under-review-CI-failed", loadPlan{prs: 100, hours: 3, published: true, threads: true, failing: true}},
		{"100PRs-resumed", loadPlan{prs: 100, hours: 3}},
		{"1000PRs", loadPlan{prs: 1000, hours: 3, published: true}},
		{"1000PRs-under-review", loadPlan{prs: 1000, hours: 3, published: true, threads: true}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				res := runLoad(b, tt.plan)
				b.ReportMetric(float64(res.pointsByHour[0]), "points/first-hour")
				b.ReportMetric(float64(res.pointsByHour[len(res.pointsByHour)-1]), "points/hour")
				b.ReportMetric(float64(res.requestsByHour[len(res.requestsByHour)-1]), "requests/hour")
				b.ReportMetric(res.cycle.Seconds(), "cycle-s")
				b.ReportMetric(float64(res.maxInFlight), "max-in-flight")
				b.ReportMetric(res.minBatchGap.Seconds(), "min-batch-gap-s")
			}
		})
	}
}

// BenchmarkEventToUpdate reports the mean time (fake clock) from a change on GitHub to the
// watcher's published update, with 40 events an hour on random pull requests.
func BenchmarkEventToUpdate(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(itoa(n)+"PRs", func(b *testing.B) {
			for b.Loop() {
				res := runLoad(b, loadPlan{prs: n, hours: 3, events: 40, seed: 3})
				b.ReportMetric(res.meanLatency().Seconds(), "mean-s")
				b.ReportMetric(res.percentile(0.9).Seconds(), "p90-s")
				b.ReportMetric(res.percentile(1).Seconds(), "max-s")
				b.ReportMetric(float64(res.pointsByHour[len(res.pointsByHour)-1]), "points/hour")
			}
		})
	}
}

// BenchmarkResolveToUpdate reports the mean and worst time (fake clock) from a thread resolved or
// unresolved on GitHub (which moves no timestamp) to the watcher's published update, with 60 an
// hour on 100 pull requests under review.
func BenchmarkResolveToUpdate(b *testing.B) {
	for b.Loop() {
		res := runLoad(b, loadPlan{prs: 100, hours: 3, resolves: 30, seed: 5})
		var sum, worst time.Duration
		for _, l := range res.resolveLatencies {
			sum += l
			worst = max(worst, l)
		}
		b.ReportMetric((sum / time.Duration(max(len(res.resolveLatencies), 1))).Seconds(), "mean-s")
		b.ReportMetric(worst.Seconds(), "max-s")
		b.ReportMetric(res.cycle.Seconds(), "cycle-s")
		b.ReportMetric(float64(res.pointsByHour[len(res.pointsByHour)-1]), "points/hour")
	}
}

// BenchmarkMemoryPerPullRequest reports the heap the watcher holds for 1,000 watched pull
// requests, each with its own snapshot of a pull request with 5 threads, 2 reviews, 3 commits and
// 4 checks.
func BenchmarkMemoryPerPullRequest(b *testing.B) {
	snap := sampleSnapshot(b)
	data, err := json.Marshal(snap)
	if err != nil {
		b.Fatal(err)
	}
	refs := loadRefs(1000)
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		w, err := New(Config{Connect: func(context.Context) (Source, error) { return nil, context.Canceled }})
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range refs {
			var s prstatus.Snapshot
			if err := json.Unmarshal(data, &s); err != nil {
				b.Fatal(err)
			}
			w.Add(r)
			w.Publish(r, &s)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(len(refs)), "heap-bytes/PR")
		b.ReportMetric(float64(len(data)), "snapshot-json-bytes")
		runtime.KeepAlive(w)
	}
}

// BenchmarkTick reports the watcher's own CPU for one fingerprint batch of 100 out of 1,000 pull
// requests, GitHub answering at once (no network, no fake).
func BenchmarkTick(b *testing.B) {
	refs := loadRefs(1000)
	src := stubSource{}
	now := githubfake.DefaultStart()
	w, err := New(Config{Now: func() time.Time { return now }, Connect: func(context.Context) (Source, error) { return src, nil }})
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range refs {
		w.Add(r)
	}
	ctx := context.Background()
	now = w.tick(ctx) // the first reads
	for now.Before(githubfake.DefaultStart().Add(time.Hour)) {
		now = w.tick(ctx)
	}
	b.ReportAllocs()
	for b.Loop() {
		now = w.tick(ctx)
	}
}

type stubSource struct{}

func (stubSource) Fingerprints(_ context.Context, refs []prstatus.PRRef) (ghclient.FingerprintBatch, error) {
	out := ghclient.FingerprintBatch{PRs: make(map[prstatus.PRRef]ghclient.Fingerprint, len(refs)),
		RateLimit: prstatus.RateLimit{Cost: 1, Remaining: 4000, Limit: 5000}}
	for _, r := range refs {
		out.PRs[r] = ghclient.Fingerprint{HeadOID: "abc", State: "OPEN"}
	}
	return out, nil
}

func (stubSource) Snapshot(_ context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	return &prstatus.Snapshot{Ref: ref, HeadOID: "abc", State: "OPEN", RateLimit: prstatus.RateLimit{Cost: 3, Remaining: 4000, Limit: 5000}}, nil
}

func sampleSnapshot(tb testing.TB) *prstatus.Snapshot {
	tb.Helper()
	s := newSim(tb, Config{})
	threads := githubfake.Threads(5, "a.go")
	s.open(testPR, githubfake.Push{Commits: githubfake.Commits(2, "step")},
		githubfake.ChecksQueued{Jobs: []string{"build", "test", "lint", "vet"}},
		githubfake.CommentReview(alice, "Some remarks.", threads...), githubfake.Approve(githubfake.User("bob"), ""))
	snap, err := s.c.Snapshot(context.Background(), testPR)
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

func itoa(n int) string { return strconv.Itoa(n) }
