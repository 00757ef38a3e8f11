package mcpserver

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// heldElsewhere saves a monitor of acme/widgets#8 in h's state and claims it, as another
// prmonitor process running it would: this server sees it saved but cannot take it up.
func heldElsewhere(t *testing.T, h *harness) {
	t.Helper()
	const id = "acme/widgets#8"
	saved, ok, err := h.state.Load("acme/widgets#7")
	require.NoError(t, err)
	require.True(t, ok, "the started monitor is saved")
	saved.Ref.Number, saved.MonitorID = 8, id
	require.NoError(t, h.state.Save(id, saved))
	release, err := h.state.Claim(id)
	require.NoError(t, err)
	t.Cleanup(release)
}

// TestNextStepAllNamesTheSavedMonitorsItCannotWatch: a saved monitor another process runs is
// left to it, and monitor_id=all's polling says so by name and why; with none held elsewhere
// nothing is said.
func TestNextStepAllNamesTheSavedMonitorsItCannotWatch(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 300 * time.Millisecond }})
	h.apply(githubfake.OpenPR{Title: "quiet"})
	h.start()

	act := h.nextAll("ready", "", nil)
	require.Equal(t, "polling", act.Action, "%+v", act)
	assert.NotContains(t, act.Message, "Not watched here", "every saved monitor is watched")

	heldElsewhere(t, h)
	act = h.nextAll("ready", "", nil)
	require.Equal(t, "polling", act.Action, "%+v", act)
	assert.Contains(t, act.Message, "Still watching 1 pull request;", "the held monitor is not counted as watched")
	assert.Contains(t, act.Message, " Not watched here: acme/widgets#8: monitor in use by another prmonitor process", act.Message)
	assert.True(t, strings.HasSuffix(act.Message, "."), act.Message)
}

// TestNextStepAllWithOnlyAMonitorHeldElsewhereEndsNamingIt: when every saved monitor runs in
// another process, monitor_id=all has nothing to watch and says which it left alone.
func TestNextStepAllWithOnlyAMonitorHeldElsewhereEndsNamingIt(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	h.apply(githubfake.OpenPR{Title: "quiet"})
	h.start()
	heldElsewhere(t, h)
	_, errText := h.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#7"})
	require.Empty(t, errText)

	act := h.nextAll("ready", "", nil)
	assert.Equal(t, "stop", act.Action, "%+v", act)
	assert.Contains(t, act.Message, "No pull request is being monitored")
	assert.Contains(t, act.Message, " Not watched here: acme/widgets#8: monitor in use by another prmonitor process", act.Message)
}

// TestNextStepAllProgressCountsThePullRequestsAndTheQuestionsWaiting: while monitor_id=all
// waits, its progress says how many pull requests it watches and how many wait on the user (a
// question held through quiet hours waits on them).
func TestNextStepAllProgressCountsThePullRequestsAndTheQuestionsWaiting(t *testing.T) {
	clock := newShiftedClock(thursdayNight)
	h := newHarness(t, harnessOpts{protocol: "2025-11-25", cfg: func(c *Config) {
		c.Quiet, c.Now, c.MaxBlock = nightly(t), clock.now, 500*time.Millisecond
	}})
	for n, events := range map[int][]githubfake.Event{
		1: {githubfake.OpenPR{Title: "quiet"}},
		2: {githubfake.OpenPR{Title: "conflict"}, githubfake.MergeConflict{}},
	} {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, events...))
	}
	require.Len(t, h.startAll(nil).Started, 2)
	h.waitSnapshots(2)

	require.Eventually(t, func() bool {
		act := h.nextAll("ready", "", nil)
		require.Equal(t, "polling", act.Action, "no question in quiet hours: %+v", act)
		h.mu.Lock()
		defer h.mu.Unlock()
		return len(h.progress) > 0 && strings.Contains(h.progress[len(h.progress)-1], "1 waiting on you")
	}, 10*time.Second, 10*time.Millisecond, "the conflict's question comes to wait on the user")
	h.mu.Lock()
	defer h.mu.Unlock()
	assert.Contains(t, h.progress[len(h.progress)-1], "watching 2 pull requests · 1 waiting on you")
}

// TestAnAnswerWithAllThatFitsSeveralOrNoneNamesThem: routed by the saved positions, an event
// two open tasks expect is refused naming both, and one no open action expects says none fits.
func TestAnAnswerWithAllThatFitsSeveralOrNoneNamesThem(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	for n := 1; n <= 2; n++ {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, githubfake.OpenPR{Title: "red"},
			githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestX\nFAIL"}))
	}
	require.Len(t, h.startAll(nil).Started, 2)
	var events []string
	for range 2 {
		a := h.nextAll("ready", "", nil)
		require.Equal(t, "execute", a.Action, "%+v", a)
		require.NotEmpty(t, a.ExpectedEvents)
		events = append(events, a.ExpectedEvents[0])
	}
	require.Equal(t, events[0], events[1], "both tasks expect the same event")

	h.srv.sched.forget() // a restarted process routes by the saved positions
	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": events[0],
		"data": map[string]any{"findings": "f", "suggested_fix": "s", "issue_type": "code"}})
	assert.Contains(t, errText, "cannot tell which pull request "+events[0]+" answers (2 open actions fit it: acme/widgets#1, acme/widgets#2)")

	h.srv.sched.forget()
	_, errText = h.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": "push_completed"})
	assert.Contains(t, errText, "none has one it fits")
}
