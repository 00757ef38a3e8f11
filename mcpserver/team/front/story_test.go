package front_test

import (
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

func TestOverHTTPAUserDrivesTheirMonitorToARefineTaskAndNoOneElseSeesIt(t *testing.T) {
	tm := newTeam(t)
	tm.open(ref, "alice")
	alice := tm.agent("alice", agentOptions{protocol: "2025-11-25"})
	bob := tm.agent("bob", agentOptions{protocol: "2026-07-28"})

	started := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	require.False(t, started.isError, started.text)
	id := started.str("monitor_id")
	assert.Equal(t, "acme/widgets#7", id)
	assert.Contains(t, started.str("title"), "Add retries")
	assert.Contains(t, started.str("summary"), "acme/widgets#7", "the pull request was read by the worker")

	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"pr_monitor_status", map[string]any{"monitor_id": id}},
		{"pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"}},
		{"pr_monitor_stop", map[string]any{"monitor_id": id}},
	} {
		r := bob.call(call.tool, call.args)
		assert.True(t, r.isError, "%s: %v", call.tool, r.out)
		assert.True(t, strings.HasPrefix(r.text, `unknown monitor "acme/widgets#7"`), "%s: another user's monitor is an unknown one: %s", call.tool, r.text)
	}
	r := bob.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#7"})
	assert.True(t, r.isError)
	assert.Contains(t, r.text, "another user of this deployment monitors that pull request")
	listing := bob.call("pr_monitor_status", map[string]any{})
	assert.Empty(t, listing.out["monitors"], "bob has no monitors")

	tm.fake.Advance(10 * time.Minute)
	call := alice.callLater("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"})
	teamtest.CallWaits(t, tm.c, monitorwf.WorkflowID(ref))
	require.NoError(t, tm.fake.Apply(githubfake.Ref(ref), githubfake.RequestChanges(githubfake.User("carol"), "Please rework the retries.")))
	changed := time.Now()
	tm.changed(ref, "pull_request_review.submitted")
	got := <-call
	task := alice.result("pr_monitor_next_step", got)
	require.False(t, task.isError, task.text)
	assert.Equal(t, "execute", task.str("action"), "%v", task.out)
	assert.Equal(t, "refine", task.str("task"))
	assert.Less(t, got.At.Sub(changed), 30*time.Second, "the waiting call got it as soon as the change was read")

	listing = alice.call("pr_monitor_status", map[string]any{})
	require.False(t, listing.isError, listing.text)
	monitors, _ := listing.out["monitors"].([]any)
	require.Len(t, monitors, 1, "alice's listing has her monitor (Temporal's visibility)")
	pending, _ := monitors[0].(map[string]any)["pending"].(map[string]any)
	assert.Equal(t, "refine", pending["task"])

	bad := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "user_chose", "choice": "merge", "question_seq": 3})
	assert.True(t, bad.isError, "the machine refuses a choice when no question is open: %v", bad.out)

	stopped := alice.call("pr_monitor_stop", map[string]any{"monitor_id": id})
	require.False(t, stopped.isError, stopped.text)
	assert.Equal(t, []any{id}, stopped.out["stopped"])
	after := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": id, "event": "ready"})
	require.False(t, after.isError, after.text)
	assert.Equal(t, "stop", after.str("action"), "an ended monitor says so")
}

func TestOverHTTPStartRefusesAPullRequestTheUserDidNotOpenAndStopsWhatItStarted(t *testing.T) {
	tm := newTeam(t)
	other := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 8}
	tm.open(other, "carol")
	alice := tm.agent("alice", agentOptions{protocol: "2026-07-28"})
	r := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#8"})
	assert.True(t, r.isError)
	assert.Contains(t, r.text, "not yours")
	missing := alice.call("pr_monitor_start", map[string]any{"pr": "acme/widgets#99"})
	assert.True(t, missing.isError)
	assert.Contains(t, missing.text, "acme/widgets#99")
	listing := alice.call("pr_monitor_status", map[string]any{})
	assert.Empty(t, listing.out["monitors"], "neither monitor runs on")
}

func TestOverHTTPStartAllFindsTheUsersOwnPullRequestsWithOneSearchAndAllServesThem(t *testing.T) {
	tm := newTeam(t)
	mine := []prstatus.PRRef{ref, {Owner: "acme", Repo: "gears", Number: 3}}
	for _, r := range mine {
		tm.open(r, "alice")
	}
	tm.open(prstatus.PRRef{Owner: "acme", Repo: "gears", Number: 4}, "carol")
	alice := tm.agent("alice", agentOptions{protocol: "2025-11-25"})
	tm.fake.ResetRecording()
	r := alice.call("pr_monitor_start_all", map[string]any{})
	require.False(t, r.isError, r.text)
	started, _ := r.out["started"].([]any)
	assert.Len(t, started, 2, "%v", r.out)
	searches := 0
	for _, doc := range tm.fake.Documents() {
		if strings.Contains(doc, "search(") {
			searches++
		}
	}
	assert.Equal(t, 1, searches, "one search request; the monitors then read their pull requests themselves")

	tm.fake.Advance(10 * time.Minute)
	require.NoError(t, tm.fake.Apply(githubfake.Ref(mine[1]), githubfake.RequestChanges(githubfake.User("carol"), "No.")))
	tm.changed(mine[1], "pull_request_review.submitted")
	got := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": "ready"})
	require.False(t, got.isError, got.text)
	assert.Equal(t, "acme/gears#3", got.str("monitor_id"), "the one that needs her: %v", got.out)
	assert.Equal(t, "refine", got.str("task"))
	assert.Contains(t, got.str("next"), `monitor_id="all"`)

	// While she works on it, the other pull request needs her: the next ready with all hands that
	// one out, and leaves the task she has alone (a ready mid-task would ask how it went).
	require.NoError(t, tm.fake.Apply(githubfake.Ref(mine[0]), githubfake.RequestChanges(githubfake.User("carol"), "Also no.")))
	tm.changed(mine[0], "pull_request_review.submitted")
	next := alice.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": "ready"})
	require.False(t, next.isError, next.text)
	assert.Equal(t, "acme/widgets#7", next.str("monitor_id"), "%v", next.out)
	assert.Equal(t, "refine", next.str("task"))
	st := alice.call("pr_monitor_status", map[string]any{"monitor_id": "acme/gears#3"})
	monitors, _ := st.out["monitors"].([]any)
	require.Len(t, monitors, 1)
	assert.Equal(t, "executing_task", monitors[0].(map[string]any)["state"], "the first task is still hers, untouched")
}
