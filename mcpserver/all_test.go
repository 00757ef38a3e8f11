package mcpserver

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// nextAll calls pr_monitor_next_step(monitor_id="all").
func (h *harness) nextAll(event, choice string, data map[string]any) contract.ActionOutput {
	h.t.Helper()
	args := map[string]any{"monitor_id": "all", "event": event}
	if choice != "" {
		args["choice"] = choice
	}
	if data != nil {
		args["data"] = data
	}
	raw, errText := h.call("pr_monitor_next_step", args)
	require.Empty(h.t, errText, "next_step all %s %s", event, choice)
	var out contract.ActionOutput
	require.NoError(h.t, json.Unmarshal(raw, &out))
	return out
}

// threePRs opens three pull requests of the viewer: #1 quiet, #2 with a merge conflict, #3 with a
// failing check; and starts them all.
func threePRs(t *testing.T, h *harness) {
	t.Helper()
	for n, events := range map[int][]githubfake.Event{
		1: {githubfake.OpenPR{Title: "quiet"}},
		2: {githubfake.OpenPR{Title: "conflict"}, githubfake.MergeConflict{}},
		3: {githubfake.OpenPR{Title: "red"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
			githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestX\nFAIL"}},
	} {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, events...))
	}
	require.Len(t, h.startAll(nil).Started, 3)
	h.waitSnapshots(3)
}

// waitSnapshots waits until the watcher has a snapshot of n pull requests.
func (h *harness) waitSnapshots(n int) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		w := h.srv.runningWatcher()
		if w == nil {
			return false
		}
		got := 0
		for _, m := range h.srv.mons.ByID() {
			if u, ok := w.Latest(m.Ref); ok && u.Snapshot != nil {
				got++
			}
		}
		return got >= n
	}, 10*time.Second, 5*time.Millisecond)
}

func TestNextStepAllHandsOutEachPRThatNeedsAttentionNamingIt(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	handsOutEachPR(t, "2026-07-28")
}

// TestNextStepAllHandsOutEachPRInTheEarlierEraToo is the same story in the 2025-11-25 era.
func TestNextStepAllHandsOutEachPRInTheEarlierEraToo(t *testing.T) { handsOutEachPR(t, "2025-11-25") }

func handsOutEachPR(t *testing.T, proto string) {
	h := newHarness(t, harnessOpts{protocol: proto, cfg: func(c *Config) { c.MaxBlock = 600 * time.Millisecond }})
	threePRs(t, h)

	// #2 (a question) and #3 (a failing check) need attention: #2 first (the scan found both
	// at once, in id order); each action names its pull request.
	first := h.nextAll("ready", "", nil)
	require.Equal(t, "acme/widgets#2", first.PR, "%+v", first)
	assert.Equal(t, first.PR, first.MonitorID, "the action names its monitor")
	assert.Contains(t, first.Next, `monitor_id="all"`, "the loop goes on with all")
	second := h.nextAll("ready", "", nil)
	require.Contains(t, []string{"acme/widgets#2", "acme/widgets#3"}, second.PR)
	assert.NotEqual(t, first.PR, second.PR, "a ready serves the other PR, not the one already handed out")

	// Get the question again; the answer, sent with all, goes to the pull request of the last
	// action handed out.
	q := second
	if q.Action != "ask_user" {
		q = h.nextAll("ready", "", nil)
	}
	require.Equal(t, "ask_user", q.Action, "%+v", q)
	require.Equal(t, "acme/widgets#2", q.PR)
	task := h.nextAll("user_chose", "rebase", nil)
	require.Equal(t, "execute", task.Action, task.Message)
	assert.Equal(t, "rebase", task.Task)
	assert.Equal(t, "acme/widgets#2", task.PR)

	// The next ready serves #3's task before #2's new one is handed again.
	next := h.nextAll("ready", "", nil)
	assert.Equal(t, "acme/widgets#3", next.PR, "%+v", next)
	assert.Equal(t, "execute", next.Action)

	// #2's task answered with its own monitor_id: the call goes on with #2 only while there
	// is something to do at once, then sends the agent back to all.
	raw, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#2", "event": "push_completed"})
	require.Empty(t, errText)
	var back contract.ActionOutput
	require.NoError(t, json.Unmarshal(raw, &back))
	if back.Action == "polling" {
		assert.Equal(t, "all", back.MonitorID)
		assert.Contains(t, back.Message, "needs nothing more now")
	} else {
		assert.Equal(t, "acme/widgets#2", back.PR, "%+v", back)
	}

	// #1 needs nothing: it is never handed out.
	for _, m := range h.srv.mons.ByID() {
		if m.ID == "acme/widgets#1" {
			assert.Equal(t, "polling", string(m.Pending().Kind))
		}
	}
}

func TestNextStepAllWaitsUntilAPRNeedsAttention(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) { c.MaxBlock = 20 * time.Second }})
	for n := 1; n <= 3; n++ {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, githubfake.OpenPR{Title: "quiet"}))
	}
	require.Len(t, h.startAll(nil).Started, 3)
	go func() {
		poll(h.srv.sched.waiting) // the call waits first
		_ = h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 2}, githubfake.MergeConflict{})
	}()
	act := h.nextAll("ready", "", nil)
	assert.Equal(t, "ask_user", act.Action, act.Message)
	assert.Equal(t, "acme/widgets#2", act.PR)
}

func TestNextStepAllReturnsPollingByItsDeadline(t *testing.T) {
	h := newHarness(t, harnessOpts{protocol: "2025-11-25", cfg: func(c *Config) { c.MaxBlock = 300 * time.Millisecond }})
	require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 1}, githubfake.OpenPR{Title: "quiet"}))
	h.startAll(nil)
	act := h.nextAll("ready", "", nil)
	assert.Equal(t, "polling", act.Action)
	assert.Equal(t, "all", act.MonitorID)
	assert.Contains(t, act.Message, "Still watching 1 pull request;", "counts read as words")
	assert.Equal(t, `pr_monitor_next_step(monitor_id="all", event="ready")`, act.Next)
}

func TestStoppingOnePRLeavesTheOthersToNextStepAll(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	threePRs(t, h)
	_, errText := h.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#2"})
	require.Empty(t, errText)
	act := h.nextAll("ready", "", nil)
	assert.Equal(t, "acme/widgets#3", act.PR, "%+v", act)
	w := h.srv.runningWatcher()
	require.NotNil(t, w)
	assert.Equal(t, 2, w.Stats().PRs, "the stopped PR is no longer watched")
}

func TestNextStepAllWithNothingMonitoredSaysSo(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	act := h.nextAll("ready", "", nil)
	assert.Equal(t, "stop", act.Action)
	assert.Contains(t, act.Message, "pr_monitor_start_all")
	assert.NotContains(t, act.Message, "Not watched here", "no saved monitor was left out")
}

func TestAnAnswerWithAllBeforeAnyActionIsRefused(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	threePRs(t, h)
	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": "user_chose", "choice": "rebase"})
	assert.Contains(t, errText, "monitor_id the action named")
}

// TestStatusAndStopAnswerWhileCallsBlock: more next_step calls than the server lets wait at once
// block on quiet pull requests; the calls past the bound return polling at once, and status and
// stop answer while the others block.
func TestStatusAndStopAnswerWhileCallsBlock(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	const workers = 8
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.Workers = workers
		c.MaxBlock = 4 * time.Second
	}})
	const prs = 10
	for n := 1; n <= prs; n++ {
		require.NoError(t, h.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, githubfake.OpenPR{Title: "quiet"}))
	}
	require.Len(t, h.startAll(nil).Started, prs)
	var wg sync.WaitGroup
	results := make(chan contract.ActionOutput, prs)
	for n := 1; n <= prs; n++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#" + strconv.Itoa(n), "event": "ready"})
			if errText == "" {
				var out contract.ActionOutput
				_ = json.Unmarshal(raw, &out)
				results <- out
			}
		}()
	}
	require.Eventually(t, func() bool { return len(h.srv.waiting.ch) == waiters(workers) }, 3*time.Second, 5*time.Millisecond,
		"as many calls block as the bound lets")
	// The calls past the bound return at once; wait for them before the stops below, which would
	// end a call that had not reached the bound yet (on a loaded machine) with stop instead.
	require.Eventually(t, func() bool { return len(results) == prs-waiters(workers) }, 3*time.Second, 5*time.Millisecond,
		"the calls past the bound returned")

	_, errText := h.call("pr_monitor_status", map[string]any{})
	require.Empty(t, errText, "status answers while calls block")
	_, errText = h.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#1"})
	require.Empty(t, errText, "stop answers while calls block")
	_, errText = h.call("pr_monitor_stop", map[string]any{"monitor_id": "all"})
	require.Empty(t, errText, "stopping every monitor ends the blocked calls")

	wg.Wait()
	close(results)
	crowded := 0
	for out := range results {
		if out.Action == "polling" && assert.NotEmpty(t, out.Message) && strings.Contains(out.Message, "already waiting") {
			crowded++
		}
	}
	assert.Equal(t, prs-waiters(workers), crowded, "the calls past the bound returned at once, saying why")
}

func TestNextStepAllHandsOutTasksButHoldsQuestionsInQuietHours(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	clock := newShiftedClock(thursdayNight)
	h := newHarness(t, harnessOpts{protocol: "2026-07-28", cfg: func(c *Config) {
		c.Quiet, c.Now, c.MaxBlock = nightly(t), clock.now, time.Second
	}})
	threePRs(t, h)
	act := h.nextAll("ready", "", nil)
	for start := time.Now(); act.Action == "polling" && time.Since(start) < 30*time.Second; {
		act = h.nextAll("ready", "", nil) // a loaded machine: the bound came before the task
	}
	assert.Equal(t, "acme/widgets#3", act.PR, "the failing check's task goes on in quiet hours: %+v", act)
	assert.Equal(t, "execute", act.Action)
	for range 2 {
		act = h.nextAll("ready", "", nil)
		assert.NotEqual(t, "ask_user", act.Action, "no question in quiet hours: %+v", act)
		assert.NotEqual(t, "acme/widgets#2", act.PR)
	}
	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": "investigation_complete",
		"data": map[string]any{"findings": "f", "suggested_fix": "s", "issue_type": "code"}})
	require.Empty(t, errText)
	act = h.nextAll("ready", "", nil)
	assert.Equal(t, "polling", act.Action, "only questions wait now: %+v", act)
	assert.Equal(t, "2026-11-27T08:00:00Z", act.QuietUntil)
	assert.Contains(t, act.Message, "Quiet hours until")
}

// TestAnAnswerWithAllAfterARestartGoesToThePRWhoseActionItAnswers: a server that handed out no
// action for all in this process (it restarted) routes an answer sent with all by the saved
// positions: a choice to the one open question offering it, a task's event to the one task
// expecting it; the answer lands there and nowhere else.
func TestAnAnswerWithAllAfterARestartGoesToThePRWhoseActionItAnswers(t *testing.T) {
	t.Parallel() // see parallelSafe in harness_test.go
	h := newHarness(t, harnessOpts{protocol: "2026-07-28"})
	threePRs(t, h)
	got := map[string]contract.ActionOutput{}
	for range 2 {
		a := h.nextAll("ready", "", nil)
		got[a.Action] = a
	}
	require.Contains(t, got, "ask_user")
	require.Contains(t, got, "execute")
	require.Equal(t, "acme/widgets#2", got["ask_user"].PR)
	task := got["execute"]
	require.Equal(t, "acme/widgets#3", task.PR)
	require.NotEmpty(t, task.ExpectedEvents)

	h.srv.sched.forget() // what a restarted process remembers of the actions handed out
	answered := h.nextAll("user_chose", "rebase", nil)
	assert.Equal(t, "acme/widgets#2", answered.PR, "%+v", answered)
	assert.Equal(t, "rebase", answered.Task)

	h.srv.sched.forget()
	ev := task.ExpectedEvents[0]
	var data map[string]any
	if ev == "investigation_complete" {
		data = map[string]any{"findings": "the test times out", "suggested_fix": "raise the timeout"}
	}
	done := h.nextAll(ev, "", data)
	require.Equal(t, "acme/widgets#3", done.PR, "the event went to #3's task: %+v", done)
	require.Equal(t, "ask_user", done.Action, "#3's investigation is taken: its question follows")

	h.srv.sched.forget()
	_, errText := h.call("pr_monitor_next_step", map[string]any{"monitor_id": "all", "event": "user_chose", "choice": "merge_now"})
	assert.Contains(t, errText, "choice not offered", "a choice no open question offers is refused, not applied")
}
