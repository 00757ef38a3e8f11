package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var ref = prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}

func TestASignedReviewWebhookReachesAWaitingHTTPNextStepAsARefineTaskWithinTenSeconds(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	w := d.worker()
	front := d.serve()
	alice := d.agent(front, "alice", "2025-11-25")
	started := alice.call("pr_monitor_start", map[string]any{"pr": "https://github.com/acme/widgets/pull/7"})
	require.Equal(t, "acme/widgets#7", started["monitor_id"])
	before, err := d.status(ref)
	require.NoError(t, err)

	forged := prEvent("pull_request_review", "submitted", ref, "alice")
	assert.Equal(t, http.StatusUnauthorized, d.deliver(w, "pull_request_review", "bad-1", forged, []byte("not the secret")))
	other := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}
	assert.Equal(t, http.StatusUnauthorized, d.deliver(w, "pull_request", "bad-2", prEvent("pull_request", "opened", other, "alice"), nil))

	pending := alice.callLater("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "ready"})
	d.callWaits(ref)
	d.fake.Advance(10 * time.Minute)
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("carol"), "Please rework the retries.")))
	at := time.Now()
	require.Equal(t, http.StatusAccepted, d.deliver(w, "pull_request_review", "good-1", forged, []byte(secret)), "the signed delivery is accepted")
	got := <-pending
	task := alice.structured("pr_monitor_next_step", got)
	assert.Equal(t, "execute", task["action"], "%v", task)
	assert.Equal(t, "refine", task["task"])
	latency := got.At.Sub(at)
	assert.Less(t, latency, 10*time.Second, "from the delivery to the waiting call's answer")
	t.Logf("webhook → next_step refine task: %s (the monitor's debounce is %s of it)", latency.Round(time.Millisecond), monitorwf.DefaultDebounce)

	// The signed delivery, sent after the forged ones, is the only change the monitor saw.
	after, err := d.status(ref)
	require.NoError(t, err)
	assert.Equal(t, before.ChangesSeen+1, after.ChangesSeen, "a bad signature signals nothing")
	_, err = d.c.DescribeWorkflow(context.Background(), monitorwf.WorkflowID(other), "")
	var notFound *serviceerror.NotFound
	assert.ErrorAs(t, err, &notFound, "nor starts anything")
	assert.NotContains(t, w.Stderr()+front.Stderr(), ghToken, "the GitHub token is in no log line")
	assert.NotContains(t, front.Stderr(), tokens["alice"], "nor the user's bearer token")
	assert.NotContains(t, w.Stderr()+front.Stderr(), secret, "nor the webhook's secret")

	history := d.history(monitorwf.WorkflowID(ref))
	require.Contains(t, history, "pull_request_review.submitted", "the history's payloads are read as text here")
	for what, s := range map[string]string{"the GitHub token": ghToken, "the webhook's secret": secret, "alice's bearer token": tokens["alice"]} {
		assert.NotContains(t, history, s, "%s is in no workflow history, argument or result", what)
	}
}

func TestACommitStatusReachesThePullRequestsOfItsCommitThroughGitHubsPullsForACommit(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	w := d.worker()
	require.Equal(t, http.StatusAccepted, d.deliver(w, "pull_request", "o-1", prEvent("pull_request", "opened", ref, "alice"), []byte(secret)))
	d.eventually(time.Minute, func() bool { st, err := d.status(ref); return err == nil && !st.LastRead.IsZero() }, "the monitor reads")
	before, _ := d.status(ref)
	head := d.fake.PR(githubfake.Ref(ref)).HeadOID()
	body := fmt.Sprintf(`{"sha":%q,"state":"failure","context":"ci/other","repository":{"name":"widgets","owner":{"login":"acme"}}}`, head)
	require.Equal(t, http.StatusAccepted, d.deliver(w, "status", "s-1", body, []byte(secret)))
	st, err := d.status(ref)
	require.NoError(t, err)
	assert.Equal(t, before.ChangesSeen+1, st.ChangesSeen, "the status event found its pull request by commit and signalled its monitor")
	assert.Equal(t, "GitHub: status.failure", st.LastEvent.What)
}
