package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// refs are n pull requests of one repository.
func refs(repo string, n int) []prstatus.PRRef {
	out := make([]prstatus.PRRef, n)
	for i := range out {
		out[i] = prstatus.PRRef{Owner: "acme", Repo: repo, Number: i + 1}
	}
	return out
}

// startAll opens and starts (by webhook) a monitor for each pull request, and waits for each
// first read.
func (d *deployment) startAll(w *teamtest.Proc, prs []prstatus.PRRef) {
	d.t.Helper()
	for _, r := range prs {
		d.open(r, "alice")
	}
	for _, r := range prs {
		require.Equal(d.t, http.StatusAccepted, d.deliver(w, "pull_request", "open-"+r.String(), prEvent("pull_request", "opened", r, "alice"), []byte(secret)))
	}
}

// readOrRefused counts the monitors of prs that have read their pull request and those the budget
// refused their read (saying until when), and returns what each said.
func (d *deployment) readOrRefused(prs []prstatus.PRRef) (read, refused int, sts map[prstatus.PRRef]monitorwf.Status) {
	sts = map[prstatus.PRRef]monitorwf.Status{}
	for _, r := range prs {
		st, err := d.status(r)
		switch {
		case err != nil:
			continue
		case st.Title != "":
			read++
		case strings.Contains(st.LastError, "share of the token's GitHub points is spent") && strings.Contains(st.LastError, "nothing is sent before"):
			refused++
		}
		sts[r] = st
	}
	return read, refused, sts
}

func (d *deployment) read(r prstatus.PRRef) time.Time {
	st, err := d.status(r)
	if err != nil {
		return time.Time{}
	}
	return st.LastRead
}

func TestA429WithRetryAfterHoldsEveryActivityOfTheTokenAcrossWorkflowsUntilThen(t *testing.T) {
	d := newDeployment(t, options{})
	w := d.worker()
	prs := refs("widgets", 6)
	d.startAll(w, prs)
	for _, r := range prs {
		d.eventually(time.Minute, func() bool { return !d.read(r).IsZero() }, "every monitor reads once")
	}

	const hold = 8 * time.Second
	d.fake.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Times: 1, Status: http.StatusTooManyRequests, RetryAfter: hold})
	require.Equal(t, http.StatusAccepted, d.deliver(w, "issue_comment", "c-0",
		`{"action":"created","issue":{"number":1,"author_association":"MEMBER","user":{"login":"alice"},"pull_request":{"url":"x"}},"repository":{"name":"widgets","owner":{"login":"acme"}}}`, []byte(secret)))
	var limited time.Time
	d.eventually(30*time.Second, func() bool {
		for _, r := range d.requests(time.Time{}) {
			if r.graphql && r.at.After(limited) {
				limited = r.at
			}
		}
		return strings.Contains(d.fake.Requests()[len(d.fake.Requests())-1].Fault, "HTTP 429")
	}, "the first monitor's read is answered 429 Retry-After")
	for i, r := range prs[1:] {
		require.Equal(t, http.StatusAccepted, d.deliver(w, "issue_comment", fmt.Sprintf("c-%d", i+1), fmt.Sprintf(
			`{"action":"created","issue":{"number":%d,"author_association":"MEMBER","user":{"login":"alice"},"pull_request":{"url":"x"}},"repository":{"name":"widgets","owner":{"login":"acme"}}}`, r.Number), []byte(secret)))
	}
	for _, r := range prs {
		d.eventually(time.Minute, func() bool { return d.read(r).After(limited) }, "every monitor reads again once the hold is over")
	}
	early := 0
	for _, r := range d.requests(limited.Add(time.Millisecond)) {
		if r.at.Before(limited.Add(hold - 500*time.Millisecond)) {
			early++
		}
	}
	assert.Zero(t, early, "nothing went to GitHub before the time it named, from any of the six monitors")
	assert.Len(t, d.requests(limited.Add(time.Millisecond)), len(prs), "then one read each")
}

func TestTheWorkerSpendsNoMoreThanItsShareOfTheTokensHourlyPoints(t *testing.T) {
	// GitHub's clock is the wall clock here: the hour's reset is in the future.
	d := newDeployment(t, options{fake: []githubfake.Option{githubfake.WithClock(time.Now), githubfake.WithRateLimit(40)}})
	w := d.worker("--budget", "25%") // 10 of the 40 points
	prs := refs("widgets", 16)
	d.startAll(w, prs)
	// Every monitor reads, or is refused its read and says why; then no read is in flight and the
	// points GitHub counted are all the worker spent.
	read, refused := 0, 0
	d.eventually(time.Minute, func() bool {
		read, refused, _ = d.readOrRefused(prs)
		return read+refused == len(prs)
	}, "every monitor has read or been refused its read past the share", func() string { return fmt.Sprintf("%d read, %d refused", read, refused) })
	graphql, _ := d.fake.RateLimitRemaining()
	spent := 40 - graphql
	assert.LessOrEqual(t, spent, 10, "the points spent stay within the share")
	assert.Positive(t, read)
	assert.Positive(t, refused, "past the share the rest were refused their read")
	t.Logf("budget 25%% of 40 points: %d points spent, %d monitors read, %d refused until the hour resets", spent, read, refused)
}
