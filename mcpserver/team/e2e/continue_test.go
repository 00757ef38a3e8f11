package e2e

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The built worker runs a monitor whose history bound is small (its parameters, which the test
// gives when it starts the monitor: the deployment's bound is thousands of events); deliveries to
// the worker's webhook grow the history past it while the agent works on a task, and the monitor
// continues as new with the task still out, as the agent sees over HTTP.
func TestWithTheBuiltWorkerAMonitorContinuesAsNewAndTheAgentFindsItWhereItWas(t *testing.T) {
	d := newDeployment(t, options{})
	d.open(ref, "alice")
	d.fake.Advance(10 * time.Minute)
	require.NoError(t, d.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("carol"), "Please rework the retries.")))
	w := d.worker()
	front := d.serve()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	starter := monitorwf.Starter{Client: d.c, TaskQueue: d.queue, Params: func(r prstatus.PRRef) monitorwf.Params {
		p := monitorwf.NewParams(r, statemachine.DefaultConfig(), prstatus.DefaultReviewerPolicy())
		p.MaxHistoryEvents = 60
		return p
	}}
	require.NoError(t, starter.Notify(ctx, ref, monitorwf.Change{Kind: "start", Owner: "alice"}))
	id := monitorwf.WorkflowID(ref)
	alice := d.agent(front, "alice", "2025-11-25")
	task := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"})
	require.Equal(t, "refine", task["task"], "%v", task)
	first := d.c.GetWorkflow(ctx, id, "").GetRunID()

	// Each comment is another (its id): the receiver drops a body it took already.
	comment := func(n int) string {
		return fmt.Sprintf(`{"action":"created","comment":{"id":%d},"issue":{"number":%d,"author_association":"CONTRIBUTOR","user":{"login":"carol"},"pull_request":{"url":"x"}},"repository":{"name":%q,"owner":{"login":%q}}}`,
			n, ref.Number, ref.Repo, ref.Owner)
	}
	var st monitorwf.Status
	n := 0
	for ; n < 200 && st.Runs == 0; n++ {
		require.Equal(t, http.StatusAccepted, d.deliver(w, "issue_comment", fmt.Sprint("c-", n), comment(n), []byte(secret)))
		st, _ = d.status(ref)
	}
	require.Positive(t, st.Runs, "the monitor continued as new")
	t.Logf("continued as new after %d deliveries", n)
	assert.NotEqual(t, first, d.c.GetWorkflow(ctx, id, "").GetRunID(), "in a new run")
	assert.Equal(t, statemachine.TaskRefine, st.Task, "the refine task is still out")

	status := alice.call("pr_monitor_status", map[string]any{"monitor_id": id})
	monitors, _ := status["monitors"].([]any)
	require.Len(t, monitors, 1, "alice still finds her monitor (its owner went with it)")
	pending, _ := monitors[0].(map[string]any)["pending"].(map[string]any)
	assert.Equal(t, "refine", pending["task"], "%v", status)
	again := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"})
	assert.Equal(t, "refine", again["task"], "the agent gets the same task back from the new run: %v", again)
	require.NoError(t, monitorwf.Stop(ctx, d.c, id))
}
