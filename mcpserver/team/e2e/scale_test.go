//go:build load

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
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
// queue, 2,000 monitors started by webhook, on a Temporal server that keeps its state in a SQLite
// file. After the start-up reads it measures a window of steady state (the points the token
// spends, each worker's memory); then agents wait on some monitors while reviews arrive (event →
// agent latency), one worker is killed (SIGKILL) and the events go on; then the Temporal server
// itself is stopped and started again on the same file and port while an agent's call waits and a
// reply to a review comment is on its way to GitHub. It asserts that no monitor is lost, no write
// reaches GitHub twice, every agent's call is answered and the calls resume. Run it on its own (it
// takes about 20 minutes and both cores):
//
//	PRMONITOR_TEMPORAL_DEV=bin/temporaldev go test -tags load -run TestScale -v -timeout 90m ./mcpserver/team/e2e/
//
// PRMONITOR_SCALE_MONITORS sets the number of monitors (default 2,000), PRMONITOR_SCALE_WINDOW
// the steady-state window (default 10m).
func TestScaleThreeWorkersTwoThousandMonitorsAWorkerKilledAndTheTemporalServerRestarted(t *testing.T) {
	n := envOr(t, "PRMONITOR_SCALE_MONITORS", 2000, strconv.Atoi)
	window := envOr(t, "PRMONITOR_SCALE_WINDOW", 10*time.Minute, time.ParseDuration)
	const limit, perRepo, events = 15000, 50, 30
	d := newDeployment(t, options{persistent: true, fake: []githubfake.Option{githubfake.WithClock(time.Now), githubfake.WithRateLimit(limit)}})
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
	// The pull request whose reply is on its way to GitHub when the server stops: one comment.
	d.open(ref, "alice")
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref),
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "retry.go", Line: 30, Body: "Name this constant."})))
	used := func() int { remaining, _ := d.fake.RateLimitRemaining(); return limit - remaining }

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

	// Start-up: every monitor reads its pull request, and reads it once more a hot refresh later
	// (a start is a change); then the reads stop.
	reads := func(from, to time.Time) (count int, last time.Time) {
		for _, r := range d.requests(from) {
			if r.graphql && r.at.Before(to) {
				count++
				last = r.at
			}
		}
		return count, last
	}
	d.eventually(30*time.Minute, func() bool { c, _ := reads(began, time.Now()); return c >= n }, "every monitor read its pull request once")
	firstRead := time.Since(began)
	firstPoints := used()
	startup := 0
	d.eventually(30*time.Minute, func() bool {
		c, last := reads(began, time.Now())
		startup = c
		return c >= 2*n || time.Since(last) > watch.DefaultHotRefresh+30*time.Second
	}, "the start-up reads end")
	settled := time.Since(began)
	startupPoints := used()

	// Steady state: a window in which nothing happens but what the monitors do by themselves.
	from, fromPoints := time.Now(), used()
	<-time.After(window) // the window is what is measured, not a wait for something
	to := time.Now()
	require.Less(t, to.Sub(began), time.Hour, "the fake's hour of points has not rolled over within the window")
	steadyReads, _ := reads(from, to)
	steadyPoints := used() - fromPoints
	rss := make([]int, 3)
	for i, w := range workers {
		rss[i] = w.RSS()
	}
	st, err := d.status(prs[0])
	require.NoError(t, err)
	t.Logf("%d monitors, 3 workers on one task queue, Temporal on a SQLite file: %d deliveries in %s; every monitor read once after %s (%d points, %.1f a read); "+
		"start-up over after %s: %d reads, %d points", n, n, delivered.Round(time.Second), firstRead.Round(time.Second), firstPoints,
		float64(firstPoints)/float64(n), settled.Round(time.Second), startup, startupPoints)
	t.Logf("steady state, %s window %s-%s: %d GraphQL requests, %d points: %.0f points an hour for the token; worker RSS %d, %d, %d MiB; "+
		"the first monitor's next reconcile read is due %s after the window (a read each per %s-%s)",
		window, from.Format(time.TimeOnly), to.Format(time.TimeOnly), steadyReads, steadyPoints, float64(steadyPoints)/window.Hours(),
		rss[0]/1024, rss[1]/1024, rss[2]/1024, st.NextReconcile.Sub(to).Round(time.Minute), watch.DefaultSafetyRefresh, watch.DefaultSafetyRefresh*11/10)

	// Agents wait on some monitors; a review arrives on each, by webhook, at a worker.
	front := d.serve()
	measure := func(from int, to int, alive []*teamtest.Proc) []time.Duration {
		var mu sync.Mutex
		var out []time.Duration
		var wg sync.WaitGroup
		for i := from; i < to; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l, err := d.reviewWhileWaiting(front, prs[i], alive[i%len(alive)], fmt.Sprintf("review-%d", i))
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
	eventsFrom, eventsPoints := time.Now(), used()
	before := measure(0, events/2, workers)
	killed := time.Now()
	workers[0].Signal(syscall.SIGKILL)
	alive := workers[1:]
	after := measure(events/2, events, alive)
	assert.Equal(t, int64(n), d.running(), "every monitor still runs after a worker was killed")
	all := append(slices.Clone(before), after...)
	eventReads, _ := reads(eventsFrom, time.Now())
	eventsPoints = used() - eventsPoints
	t.Logf("event → agent (delivery to the waiting call's answer): p50 %s, p95 %s over %d events; before the kill p50 %s p95 %s, "+
		"after (worker 1 killed at %s) p50 %s p95 %s; worker RSS after: %d, %d MiB; the events' reads until their answers: %d, %d points",
		pct(all, .5), pct(all, .95), len(all), pct(before, .5), pct(before, .95), killed.Format(time.TimeOnly), pct(after, .5), pct(after, .95),
		alive[0].RSS()/1024, alive[1].RSS()/1024, eventReads, eventsPoints)
	assert.Less(t, pct(all, .95), 10*time.Second, "p95 within 10 s")
	for i, r := range rss {
		assert.Less(t, r, 1<<20, "worker %d under 1 GiB", i+1)
	}

	d.restartMidRun(t, front, alive, prs[events], prs[events+1], append(slices.Clone(prs), ref))
}

// restartMidRun stops the Temporal server while an agent's call waits on monitor waiter and a
// reply to a review comment on ref is on its way to GitHub, and starts it again on the same file
// and port once every process has noticed; then an agent waits on monitor next for a review.
// prs are every monitor that runs.
func (d *deployment) restartMidRun(t *testing.T, front *teamtest.Proc, workers []*teamtest.Proc, waiter, next prstatus.PRRef, prs []prstatus.PRRef) {
	alice := d.agent(front, "alice", "2026-07-28")
	alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	alice.untilAddressComment("acme/widgets#7")
	// GitHub takes the reply, then answers slowly: the answer comes while the server is down.
	d.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/pulls/*/comments/*/replies"), Times: 1, After: true, Delay: 10 * time.Second})
	replied, err := d.waitingCall(alice, "acme/widgets#7", map[string]any{"event": "comment_addressed", "data": map[string]any{"reply_text": "Named it maxRetries."}}, nil)
	require.NoError(t, err)
	d.eventually(time.Minute, func() bool { return d.replies() == 1 }, "the reply is in flight")
	waiting, err := d.waitingCall(d.agent(front, "alice", "2025-11-25"), monitorwf.WorkflowID(waiter), map[string]any{"event": "ready"}, &waiter)
	require.NoError(t, err)

	// Down until the worker and the front end say they are not ready (each noticed), and for
	// outage at least, as a server restarted by an operator or a crash would be.
	const outage = 15 * time.Second
	procs := append([]*teamtest.Proc{front}, workers...)
	readyz := func(want int) func() bool {
		return func() bool {
			for _, p := range procs {
				if resp, _ := get(t, http.MethodGet, p.Addr, "/readyz", ""); resp.StatusCode != want {
					return false
				}
			}
			return true
		}
	}
	stopped := time.Now()
	require.NoError(t, d.srv.Stop())
	d.eventually(2*time.Minute, readyz(http.StatusServiceUnavailable), "every process says it is not ready")
	noticed := time.Since(stopped)
	d.eventually(time.Minute, func() bool { return time.Since(stopped) >= outage }, "the outage lasts")
	require.NoError(t, d.srv.Restart())
	restarted := time.Now()
	down := restarted.Sub(stopped)
	d.eventually(2*time.Minute, readyz(http.StatusOK), "every process is ready again on its own")
	ready := time.Since(restarted)

	// Calls resume: an agent's call on another monitor gets the review that arrives meanwhile.
	l, err := d.reviewWhileWaiting(front, next, workers[0], "review-after-restart")
	require.NoError(t, err, "a call after the restart")
	resumed := time.Since(restarted)
	// The call that waited through the restart is answered: its action, or polling.
	w := <-waiting
	require.NoError(t, w.err, "the call that waited through the restart")
	assert.Contains(t, []any{"polling", "execute", "ask_user"}, w.out["action"], "%v", w.out)

	r := <-replied
	require.NoError(t, r.err, "the reply's call")
	d.eventually(3*time.Minute, func() bool {
		thread, err := d.fake.PR(githubfake.Ref(ref)).Thread(0)
		return err == nil && len(thread.Comments) == 2
	}, "the reply is on GitHub")
	assert.Equal(t, 1, d.replies(), "the reply was posted once")
	for _, w := range d.writes() {
		if strings.HasSuffix(w.path, "/replies") { // GitHub took it before the stop and answered while the server was down
			assert.True(t, w.at.Before(stopped) && w.at.Add(10*time.Second).After(stopped) && w.at.Add(10*time.Second).Before(restarted),
				"the reply's answer came while the server was down: posted %s, stopped %s, restarted %s", w.at, stopped, restarted)
		}
	}
	seen := map[string]int{}
	var writes []string
	for _, w := range d.writes() {
		seen[w.method+" "+w.path+" "+w.body]++
		writes = append(writes, w.method+" "+w.path)
	}
	for k, c := range seen {
		assert.Equal(t, 1, c, "a write reached GitHub %d times: %.200s", c, k)
	}

	// No monitor lost: every one runs and answers.
	assert.Equal(t, int64(len(prs)), d.running(), "every monitor still runs after the restart")
	lost := d.unanswered(prs)
	assert.Empty(t, lost, "every monitor answers its query after the restart")
	t.Logf("Temporal server restarted: down %s (every process said not ready %s after the stop), every process ready %s after the restart; "+
		"a new call on another monitor answered with its review %s after the restart (event → agent %s); the call that waited through it answered %q after %s; "+
		"the reply's call answered %q after %s; %d monitors running, %d not answering; writes to GitHub %q, none twice",
		down.Round(100*time.Millisecond), noticed.Round(100*time.Millisecond), ready.Round(100*time.Millisecond),
		resumed.Round(100*time.Millisecond), l.Round(10*time.Millisecond), w.out["action"], w.took.Round(100*time.Millisecond),
		r.out["action"], r.took.Round(100*time.Millisecond), d.running(), len(lost), writes)
	t.Logf("worker RSS after the restart: %d, %d MiB", workers[0].RSS()/1024, workers[1].RSS()/1024)
}

// answer is a tool call's outcome and how long it took.
type answer struct {
	out  map[string]any
	err  error
	took time.Duration
}

// waitingCall calls pr_monitor_next_step on monitor id with args; the answer comes on the
// channel. With watch set it returns once that monitor has taken the agent's ready (its last
// event is the agent's), so the call waits in the monitor; a failure to see that is its error.
// It does not end the test: goroutines call it.
func (d *deployment) waitingCall(a *agent, id string, args map[string]any, watch *prstatus.PRRef) (<-chan answer, error) {
	var last monitorwf.Event
	if watch != nil {
		st, err := d.status(*watch)
		if err != nil {
			return nil, err
		}
		last = st.LastEvent
	}
	out := make(chan answer, 1)
	args = mapsWith(args, "monitor_id", id)
	go func() {
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		res, err := a.s.CallTool(ctx, &sdk.CallToolParams{Name: "pr_monitor_next_step", Arguments: args})
		var m map[string]any
		if err == nil {
			m, err = structured(res)
		}
		out <- answer{out: m, err: err, took: time.Since(began)}
	}()
	if watch == nil {
		return out, nil
	}
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := d.status(*watch)
		if err == nil && (st.LastEvent.What != last.What || !st.LastEvent.At.Equal(last.At)) && strings.HasPrefix(st.LastEvent.What, "agent: ready") {
			return out, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s did not take the agent's ready within a minute (last event %+v, %v)", id, st.LastEvent, err)
		}
		<-time.After(250 * time.Millisecond) // a status query costs the server and a worker a task
	}
}

// reviewWhileWaiting has an agent wait on r and a review arrive at worker w by webhook once the
// monitor has the agent's call: how long from the delivery to the call's answer.
func (d *deployment) reviewWhileWaiting(front *teamtest.Proc, r prstatus.PRRef, w *teamtest.Proc, id string) (time.Duration, error) {
	answered, err := d.waitingCall(d.agent(front, "alice", "2025-11-25"), monitorwf.WorkflowID(r), map[string]any{"event": "ready"}, &r)
	if err != nil {
		return 0, err
	}
	if err := d.fake.Apply(githubfake.Ref(r), githubfake.RequestChanges(githubfake.User("carol"), "Please rework "+id)); err != nil {
		return 0, err
	}
	at := time.Now()
	if code := d.deliver(w, "pull_request_review", id, prEvent("pull_request_review", "submitted", r, "alice"), []byte(secret)); code != http.StatusAccepted {
		return 0, fmt.Errorf("delivery answered %d", code)
	}
	a := <-answered
	if a.err == nil && a.out["action"] == "polling" {
		a.err = fmt.Errorf("the call ended polling, without the review: %v", a.out)
	}
	return time.Since(at), a.err
}

// running counts the monitors Temporal's visibility lists as running.
func (d *deployment) running() int64 {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	count, err := d.c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: d.srv.Namespace,
		Query: fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", monitorwf.WorkflowName)})
	require.NoError(d.t, err)
	return count.GetCount()
}

// unanswered lists the monitors of prs that do not answer a status query.
func (d *deployment) unanswered(prs []prstatus.PRRef) []string {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var ids []string
	for _, r := range prs {
		ids = append(ids, monitorwf.WorkflowID(r))
	}
	var mu sync.Mutex
	var lost []string
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range jobs {
				if _, err := monitorwf.QueryMonitor(ctx, d.c, id); err != nil {
					mu.Lock()
					lost = append(lost, fmt.Sprintf("%s: %v", id, err))
					mu.Unlock()
				}
			}
		}()
	}
	for _, id := range ids {
		jobs <- id
	}
	close(jobs)
	wg.Wait()
	return lost
}

// pct is the q quantile of ds.
func pct(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))].Round(10 * time.Millisecond)
}

// envOr is the environment's name parsed, or def.
func envOr[T any](t *testing.T, name string, def T, parse func(string) (T, error)) T {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := parse(s)
	require.NoError(t, err, name)
	return v
}

// mapsWith is m with k set to v (m unchanged).
func mapsWith(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{k: v}
	for mk, mv := range m {
		out[mk] = mv
	}
	return out
}

// writes are the requests that changed something on GitHub.
func (d *deployment) writes() []request {
	var out []request
	for _, r := range d.requests(time.Time{}) {
		if r.write {
			out = append(out, r)
		}
	}
	return out
}
