//go:build load

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// The scale run (docs/benchmarks.md, "The team deployment at scale"): three workers on one task
// queue, 2,000 monitors started by webhook, agents waiting on some of them; then one worker is
// killed (SIGKILL) and the events go on. It measures the points the token spends, each worker's
// memory, and event → agent latency; it asserts that no monitor is lost and every agent's call is
// answered. Run it on its own (it takes minutes and both cores):
//
//	PRMONITOR_TEMPORAL_DEV=bin/temporaldev go test -tags load -run TestScale -v -timeout 60m ./mcpserver/team/e2e/
//
// PRMONITOR_SCALE_MONITORS sets the number of monitors (default 2,000).
func TestScaleThreeWorkersTwoThousandMonitorsAndAWorkerKilledMidRun(t *testing.T) {
	n := 2000
	if s := os.Getenv("PRMONITOR_SCALE_MONITORS"); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	const limit, perRepo, events = 15000, 50, 30
	d := newDeployment(t, options{fake: []githubfake.Option{githubfake.WithClock(time.Now), githubfake.WithRateLimit(limit)}})
	var workers []*teamtest.Proc
	for range 3 {
		workers = append(workers, d.worker("--budget", "100%"))
	}
	var prs []prstatus.PRRef
	for i := 0; len(prs) < n; i++ {
		prs = append(prs, refs(fmt.Sprintf("repo%d", i), min(perRepo, n-len(prs)))...)
	}
	for _, r := range prs {
		d.open(r, "alice")
	}

	began := time.Now()
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r := prs[i]
				assert.Equal(t, http.StatusAccepted, d.deliver(workers[i%3], "pull_request", "open-"+r.String(), prEvent("pull_request", "opened", r, "alice"), []byte(secret)))
			}
		}()
	}
	for i := range prs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	delivered := time.Since(began)
	graphql := func(from time.Time) int {
		c := 0
		for _, r := range d.requests(from) {
			if r.graphql {
				c++
			}
		}
		return c
	}
	d.eventually(30*time.Minute, func() bool { time.Sleep(2 * time.Second); return graphql(began) >= n }, "every monitor read its pull request once")
	settled := time.Since(began)
	remaining, _ := d.fake.RateLimitRemaining()
	startPoints := limit - remaining
	rss := make([]int, 3)
	for i, w := range workers {
		rss[i] = w.RSS()
	}

	// Agents wait on some monitors; a review arrives on each, by webhook, at a worker.
	front := d.serve()
	latency := func(r prstatus.PRRef, w *teamtest.Proc, id string) (time.Duration, error) {
		a := d.agent(front, "alice", "2025-11-25")
		answered := make(chan error, 1)
		var at time.Time
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			res, err := a.s.CallTool(ctx, &sdk.CallToolParams{Name: "pr_monitor_next_step",
				Arguments: map[string]any{"monitor_id": monitorwf.WorkflowID(r), "event": "ready"}})
			if err == nil && res.IsError {
				err = fmt.Errorf("a tool error: %v", res.Content)
			}
			answered <- err
		}()
		time.Sleep(3 * time.Second) // the call waits by then
		if err := d.fake.Apply(githubfake.Ref(r), githubfake.RequestChanges(githubfake.User("carol"), "Please rework "+id)); err != nil {
			return 0, err
		}
		at = time.Now()
		if code := d.deliver(w, "pull_request_review", id, prEvent("pull_request_review", "submitted", r, "alice"), []byte(secret)); code != http.StatusAccepted {
			return 0, fmt.Errorf("delivery answered %d", code)
		}
		err := <-answered
		return time.Since(at), err
	}
	measure := func(from int, to int, alive []*teamtest.Proc) []time.Duration {
		var mu sync.Mutex
		var out []time.Duration
		var wg sync.WaitGroup
		for i := from; i < to; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := latency(prs[i], alive[i%len(alive)], fmt.Sprintf("review-%d", i))
				if assert.NoError(t, err, "the agent on %s is answered", prs[i]) {
					mu.Lock()
					out = append(out, l)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return out
	}
	before := measure(0, events/2, workers)

	killed := time.Now()
	workers[0].Signal(syscall.SIGKILL)
	after := measure(events/2, events, workers[1:])

	// No monitor lost.
	count, err := d.c.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{Namespace: d.srv.Namespace,
		Query: fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", monitorwf.WorkflowName)})
	require.NoError(t, err)
	assert.Equal(t, int64(n), count.GetCount(), "every monitor still runs after a worker was killed")

	p := func(ds []time.Duration, q float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		s := slices.Clone(ds)
		slices.Sort(s)
		return s[min(len(s)-1, int(q*float64(len(s))))].Round(10 * time.Millisecond)
	}
	all := append(slices.Clone(before), after...)
	perRead := float64(startPoints) / float64(n)
	perHour := float64(n) * perRead / watch.DefaultSafetyRefresh.Hours()
	t.Logf("%d monitors, 3 workers on one task queue: %d deliveries in %s, every monitor read in %s (%d points, %.1f a read); "+
		"worker RSS %d, %d, %d MiB; steady state (a reconcile read each per %s): about %.0f points an hour for the token",
		n, n, delivered.Round(time.Second), settled.Round(time.Second), startPoints, perRead, rss[0]/1024, rss[1]/1024, rss[2]/1024,
		watch.DefaultSafetyRefresh, perHour)
	t.Logf("event → agent (delivery to the waiting call's answer): p50 %s, p95 %s over %d events; before the kill p50 %s p95 %s, "+
		"after (worker 1 killed at %s) p50 %s p95 %s; worker RSS after: %d, %d MiB",
		p(all, .5), p(all, .95), len(all), p(before, .5), p(before, .95), killed.Format(time.TimeOnly), p(after, .5), p(after, .95),
		workers[1].RSS()/1024, workers[2].RSS()/1024)
	assert.Less(t, p(all, .95), 10*time.Second, "p95 within 10 s")
	for i, r := range rss {
		assert.Less(t, r, 1<<20, "worker %d under 1 GiB", i+1)
	}
}
