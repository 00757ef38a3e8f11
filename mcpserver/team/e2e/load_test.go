package e2e

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// TestFiveHundredMonitorsOnOneWorkerStayWithinTheTokensBudgetShare starts 500 monitors (ten
// repositories of 50 pull requests) by webhook on one worker with the default budget (25 % of
// GitHub's 5,000 GraphQL points an hour) and counts what reaches GitHub. A monitor reads its pull
// request once when it starts (about 3 points); past the share the rest wait for the hour's reset,
// refused before anything is sent. Idle, the monitors cost nothing until their reconcile timers
// (two hours, jittered): 500 reads of about 3 points every two hours is 750 points an hour, within
// the share.
func TestFiveHundredMonitorsOnOneWorkerStayWithinTheTokensBudgetShare(t *testing.T) {
	const limit, perRepo, repos = 5000, 50, 10
	d := newDeployment(t, options{fake: []githubfake.Option{githubfake.WithClock(time.Now), githubfake.WithRateLimit(limit)}})
	w := d.worker()
	var prs []prstatus.PRRef
	for i := range repos {
		prs = append(prs, refs(fmt.Sprintf("repo%d", i), perRepo)...)
	}
	for _, r := range prs {
		d.open(r, "alice")
	}
	began := time.Now()
	var wg sync.WaitGroup
	jobs := make(chan prstatus.PRRef)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				assert.Equal(t, http.StatusAccepted, d.deliver(w, "pull_request", "open-"+r.String(), prEvent("pull_request", "opened", r, "alice"), []byte(secret)))
			}
		}()
	}
	for _, r := range prs {
		jobs <- r
	}
	close(jobs)
	wg.Wait()
	delivered := time.Since(began)

	// Every monitor reads, or is refused its read by the budget and says so. Then no read is in
	// flight: what reached GitHub is all there is to count.
	var read, refused int
	var settledAt map[prstatus.PRRef]monitorwf.Status
	d.eventually(5*time.Minute, func() bool {
		read, refused, settledAt = d.readOrRefused(prs)
		return read+refused == len(prs)
	}, "every monitor has read its pull request or been refused by the budget", func() string { return fmt.Sprintf("%d read, %d refused", read, refused) })
	settled := time.Since(began)
	rss := w.RSS()
	remaining, _ := d.fake.RateLimitRemaining()
	spent := limit - remaining
	snapshots := 0
	for _, r := range d.requests(began) {
		if r.graphql {
			snapshots++
		}
	}
	share := int(watch.DefaultBudget * limit)
	assert.LessOrEqual(t, spent, share, "the points spent stay within the share")
	assert.Equal(t, read, snapshots, "one GraphQL request per monitor read: a start costs one snapshot")
	assert.Positive(t, refused, "past the share the rest wait (500 first reads cost more than the hour's share)")

	idleFrom := time.Now()
	front := d.serve()
	listing := d.agent(front, "alice", "2026-07-28").call("pr_monitor_status", map[string]any{})
	listed, _ := listing["monitors"].([]any)
	omitted, _ := listing["omitted"].(float64)
	assert.Equal(t, len(prs), len(listed)+int(omitted), "alice's status lists what fits and counts the rest")
	assert.Empty(t, d.requests(idleFrom), "status reads the workflows, not GitHub")
	// Idle, the monitors send nothing: each monitor answers a query only once it has done what
	// fell due before it (a timer that fired, a read's result), so once every one has answered,
	// anything idle monitors do is in the requests and the statuses.
	for _, r := range prs {
		st, err := d.status(r)
		require.NoError(t, err)
		require.Equal(t, settledAt[r].LastRead, st.LastRead, "%s read nothing since", r)
		require.Equal(t, settledAt[r].ChangesSeen, st.ChangesSeen, "%s saw no change since", r)
	}
	idle := time.Since(idleFrom)
	assert.Empty(t, d.requests(idleFrom), "idle monitors send GitHub nothing")

	perRead := float64(spent) / float64(read)
	perHour := float64(len(prs)) * perRead / watch.DefaultSafetyRefresh.Hours()
	t.Logf("500 monitors on one worker: %d webhook deliveries in %s, settled in %s; %d read (%d GraphQL requests, %d points, %.1f a read), "+
		"%d refused until the hour resets (share %d of %d points); worker RSS %d MiB; idle: 0 requests in %s; "+
		"steady state (a reconcile read each per %s): about %.0f points an hour",
		len(prs), delivered.Round(time.Millisecond), settled.Round(time.Second), read, snapshots, spent, perRead,
		refused, share, limit, rss/1024, idle.Round(time.Second), watch.DefaultSafetyRefresh, perHour)
	require.Less(t, perHour, float64(share), "the steady state fits the share")
}
