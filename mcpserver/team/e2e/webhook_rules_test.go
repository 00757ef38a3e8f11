package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/prstatus"
)

// prEventAt is a pull request delivery as GitHub sends it, with the pull request's updated_at
// (each delivery's body is its own: the receiver drops a body it took already).
func prEventAt(event, action string, r prstatus.PRRef, author, assoc string, at time.Time) string {
	extra := ""
	if event == "pull_request_review" {
		extra = fmt.Sprintf(`"review":{"state":"commented","submitted_at":%q},`, at.Format(time.RFC3339Nano))
	}
	return fmt.Sprintf(`{"action":%q,%s"pull_request":{"number":%d,"state":"open","author_association":%q,"user":{"login":%q},"updated_at":%q},"repository":{"name":%q,"owner":{"login":%q}}}`,
		action, extra, r.Number, assoc, author, at.Format(time.RFC3339Nano), r.Repo, r.Owner)
}

// commentAt is an issue_comment delivery by login on pull request r.
func commentAt(r prstatus.PRRef, login string, at time.Time) string {
	return fmt.Sprintf(`{"action":"created","comment":{"user":{"login":%q},"created_at":%q,"updated_at":%q},"issue":{"number":%d,"author_association":"MEMBER","user":{"login":"alice"},"pull_request":{"url":"x"}},"repository":{"name":%q,"owner":{"login":%q}}}`,
		login, at.Format(time.RFC3339Nano), at.Format(time.RFC3339Nano), r.Number, r.Repo, r.Owner)
}

// latestRun is monitor r's latest run: its id and whether it runs.
func (d *deployment) latestRun(r prstatus.PRRef) (string, enumspb.WorkflowExecutionStatus) {
	d.t.Helper()
	desc, err := d.c.DescribeWorkflow(context.Background(), monitorwf.WorkflowID(r), "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return "", enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED
	}
	require.NoError(d.t, err)
	return desc.WorkflowExecution.RunID, desc.Status
}

// TestAStopLastsUntilItsOwnerStartsTheMonitorAgainAndOnlyAWritersPullRequestStartsOne: alice
// stops her monitor; an outsider's comment, a review, her own push and a close start nothing;
// a closed pull request's delivery starts no monitor either. Her own start runs it again, and then
// deliveries reach it.
func TestAStopLastsUntilItsOwnerStartsTheMonitorAgainAndOnlyAWritersPullRequestStartsOne(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	w := d.worker()
	front := d.serve()
	alice := d.agent(front, "alice", "2025-11-25")
	now := time.Now().UTC()
	deliver := func(event, id, body string) (int, string) {
		t.Helper()
		return teamtest.DeliverAnswer(t, w.Addr, event, id, body, []byte(secret))
	}
	status, outcome := deliver("pull_request", "open-1", prEventAt("pull_request", "opened", ref, "alice", "MEMBER", now))
	require.Equal(t, http.StatusAccepted, status, outcome)
	d.eventually(time.Minute, func() bool { st, err := d.status(ref); return err == nil && !st.LastRead.IsZero() }, "the monitor reads")
	alice.call("pr_monitor_stop", map[string]any{"monitor_id": monitorwf.WorkflowID(ref)})
	d.eventually(time.Minute, func() bool { _, s := d.latestRun(ref); return s == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED }, "the monitor stops")
	stopped, _ := d.latestRun(ref)

	tests := []struct {
		name, event, body string
	}{
		{"an outsider's comment", "issue_comment", commentAt(ref, "mallory", now.Add(time.Second))},
		{"a review by anyone", "pull_request_review", prEventAt("pull_request_review", "submitted", ref, "alice", "MEMBER", now.Add(2*time.Second))},
		{"her own push", "pull_request", prEventAt("pull_request", "synchronize", ref, "alice", "MEMBER", now.Add(3*time.Second))},
		{"the pull request closed", "pull_request", prEventAt("pull_request", "closed", ref, "alice", "MEMBER", now.Add(4*time.Second))},
		{"her pull request marked ready", "pull_request", prEventAt("pull_request", "ready_for_review", ref, "alice", "MEMBER", now.Add(5*time.Second))},
	}
	for i, tt := range tests {
		status, outcome := deliver(tt.event, fmt.Sprint("after-stop-", i), tt.body)
		assert.Equal(t, http.StatusOK, status, tt.name)
		assert.Equal(t, "no-monitor", outcome, tt.name)
		run, s := d.latestRun(ref)
		assert.Equal(t, stopped, run, "%s: no new run", tt.name)
		assert.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, s, tt.name)
	}

	closed := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}
	d.open(closed, "alice")
	status, outcome = deliver("pull_request", "closed-8", prEventAt("pull_request", "closed", closed, "alice", "MEMBER", now))
	assert.Equal(t, "no-monitor", outcome, "a close starts nothing (%d)", status)
	run, _ := d.latestRun(closed)
	assert.Empty(t, run, "no monitor for a closed pull request")

	started := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.Equal(t, "acme/widgets#7", started["monitor_id"])
	run, s := d.latestRun(ref)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, s, "her own start runs it again")
	assert.NotEqual(t, stopped, run)
	status, outcome = deliver("issue_comment", "after-restart", commentAt(ref, "carol", now.Add(time.Minute)))
	assert.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, "signalled", outcome, "a running monitor is signalled by anyone's activity")
}

// TestAReplayedDeliveryIsDroppedByTheMonitorEvenAfterTheWorkerRestarts: the same signed body
// under a new delivery id, sent to a worker that never saw it (restarted, or another replica), is
// dropped by the monitor's own memory: it makes no change and no read. An old captured event is
// refused outright.
func TestAReplayedDeliveryIsDroppedByTheMonitorEvenAfterTheWorkerRestarts(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	first := d.worker()
	now := time.Now().UTC()
	opened := prEventAt("pull_request", "opened", ref, "alice", "MEMBER", now)
	require.Equal(t, http.StatusAccepted, d.deliver(first, "pull_request", "o-1", opened, []byte(secret)))
	comment := commentAt(ref, "carol", now.Add(time.Second))
	require.Equal(t, http.StatusAccepted, d.deliver(first, "issue_comment", "c-1", comment, []byte(secret)))
	d.eventually(time.Minute, func() bool { st, err := d.status(ref); return err == nil && st.ChangesSeen >= 2 }, "both changes are taken")
	before, err := d.status(ref)
	require.NoError(t, err)

	first.Signal(syscall.SIGKILL)
	second := d.worker()
	for i, body := range []string{opened, comment} {
		status, outcome := teamtest.DeliverAnswer(t, second.Addr, []string{"pull_request", "issue_comment"}[i], fmt.Sprint("replayed-", i), body, []byte(secret))
		assert.Less(t, status, http.StatusInternalServerError, outcome)
	}
	fresh := commentAt(ref, "carol", now.Add(2*time.Second))
	require.Equal(t, http.StatusAccepted, d.deliver(second, "issue_comment", "c-2", fresh, []byte(secret)))
	d.eventually(time.Minute, func() bool { st, err := d.status(ref); return err == nil && st.ChangesSeen > before.ChangesSeen },
		"the fresh delivery is taken")
	after, err := d.status(ref)
	require.NoError(t, err)
	assert.Equal(t, before.ChangesSeen+1, after.ChangesSeen, "the replays (signalled before the fresh one) changed nothing")

	old := prEventAt("pull_request", "synchronize", ref, "alice", "MEMBER", now.Add(-48*time.Hour))
	status, outcome := teamtest.DeliverAnswer(t, second.Addr, "pull_request", "captured-long-ago", old, []byte(secret))
	assert.Equal(t, http.StatusUnprocessableEntity, status)
	assert.Equal(t, "stale", outcome)
}
