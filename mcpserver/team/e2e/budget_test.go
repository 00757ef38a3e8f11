package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	d.eventually(time.Minute, func() bool {
		refused := 0
		for _, r := range prs {
			if st, err := d.status(r); err == nil && strings.Contains(st.LastError, "share of the token's GitHub points is spent") {
				refused++
			}
		}
		return refused > 0
	}, "monitors past the share are refused their read")
	time.Sleep(5 * time.Second) // anything still in flight lands
	graphql, _ := d.fake.RateLimitRemaining()
	spent := 40 - graphql
	read, refused := 0, 0
	for _, r := range prs {
		st, err := d.status(r)
		require.NoError(t, err)
		switch {
		case st.Title != "":
			read++
		case strings.Contains(st.LastError, "nothing is sent before"):
			refused++
		}
	}
	assert.LessOrEqual(t, spent, 10, "the points spent stay within the share")
	assert.Positive(t, read)
	assert.Equal(t, len(prs), read+refused, "every other monitor was refused its read, and says why")
	t.Logf("budget 25%% of 40 points: %d points spent, %d monitors read, %d refused until the hour resets", spent, read, refused)
}
