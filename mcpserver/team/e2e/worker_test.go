package e2e

import (
	"context"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The worker alone: webhooks in, the monitors on Temporal, the GitHub work through the effects
// package.

// readOnce waits until ref's monitor has read its pull request.
func (d *deployment) readOnce(r prstatus.PRRef) monitorwf.Status {
	d.t.Helper()
	var st monitorwf.Status
	d.eventually(time.Minute, func() bool {
		var err error
		st, err = d.status(r)
		return err == nil && !st.LastRead.IsZero()
	}, "the monitor reads the pull request")
	return st
}

func TestASignedWebhookStartsAMonitorThatReadsTheFakeAndABadSignatureSignalsNothing(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "dev")
	w := d.worker()
	other := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}

	assert.Equal(t, http.StatusUnauthorized, d.deliver(w, "pull_request", "bad-1", prEvent("pull_request", "opened", other, "dev"), []byte("not the secret")))
	assert.Equal(t, http.StatusAccepted, d.deliver(w, "pull_request", "good-1", prEvent("pull_request", "opened", ref, "dev"), []byte(secret)))

	st := d.readOnce(ref)
	assert.Equal(t, statemachine.StatePolling, st.State)
	assert.Equal(t, "Add retries", string(st.Title))
	assert.Equal(t, "dev", st.Owner, "a monitor a delivery starts belongs to the pull request's author")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := d.c.DescribeWorkflow(ctx, monitorwf.WorkflowID(other), "")
	var notFound *serviceerror.NotFound
	assert.ErrorAs(t, err, &notFound, "the badly signed delivery started no monitor")
	assert.NotContains(t, w.Stderr(), ghToken, "the token is in no log line")
}

func TestAWorkerKilledMidFlowIsReplacedAndTheMonitorResumesWhereItWas(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "dev")
	first := d.worker()
	require.Equal(t, http.StatusAccepted, d.deliver(first, "pull_request", "d1", prEvent("pull_request", "opened", ref, "dev"), []byte(secret)))
	d.readOnce(ref)

	first.Signal(syscall.SIGKILL)
	d.fake.Advance(10 * time.Minute) // the review comes after the head commit, on GitHub's clock
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("bob"), "Please rework the retries.")))
	second := d.worker()
	require.Equal(t, http.StatusAccepted, d.deliver(second, "pull_request_review", "d2", prEvent("pull_request_review", "submitted", ref, "dev"), []byte(secret)))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := monitorwf.WorkflowID(ref)
	r, err := monitorwf.NextStep(ctx, d.c, id, monitorwf.NextStepRequest{Event: statemachine.EventReady, Wait: 45 * time.Second})
	require.NoError(t, err)
	st, err := monitorwf.QueryMonitor(ctx, d.c, id)
	require.NoError(t, err)
	assert.Equal(t, statemachine.TaskRefine, r.Action.Task, "the second worker carried the same monitor on to the review: %+v\n%s", st, second.Stderr())
	assert.Equal(t, 2, st.ChangesSeen, "one run: the opening and the review, across the two workers")
}

func TestTheWorkerDoesTheMachinesGitHubWorkThroughTheEffectsPackage(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "dev")
	w := d.worker()
	d.fake.Advance(10 * time.Minute)
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("bob"), "Please rework the retries.")))
	// The pull request opened (a review only signals a monitor that runs): its first read finds bob's review.
	require.Equal(t, http.StatusAccepted, d.deliver(w, "pull_request", "r1", prEvent("pull_request", "opened", ref, "dev"), []byte(secret)))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := monitorwf.WorkflowID(ref)
	r, err := monitorwf.NextStep(ctx, d.c, id, monitorwf.NextStepRequest{Event: statemachine.EventReady, Wait: 45 * time.Second})
	require.NoError(t, err)
	require.Equal(t, statemachine.TaskRefine, r.Action.Task)

	d.fake.Advance(10 * time.Minute)
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref), githubfake.Push{Commits: githubfake.Commits(1, "fix")}))
	// Nothing comes for the agent after the push (the machine asks bob, then watches): the Update
	// answers polling when its wait ends, by which time the work is long done.
	r, err = monitorwf.NextStep(ctx, d.c, id, monitorwf.NextStepRequest{Event: statemachine.EventPushCompleted, Wait: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, statemachine.ActionPolling, r.Action.Kind, "%+v", r.Action)

	gh, err := ghclient.New(ghclient.Config{RESTURL: d.github.URL, Token: ghclient.NewToken(ghToken)})
	require.NoError(t, err)
	snap, err := gh.Snapshot(ctx, ref)
	require.NoError(t, err)
	assert.Contains(t, snap.ReviewRequests, "bob", "the worker asked bob to review again, through mcpserver/effects")
}
