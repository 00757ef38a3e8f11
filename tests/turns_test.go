package tests

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Agent turns per idle PR-hour, the cost of waiting in each mode (docs/benchmarks.md, "Turns").
// An agent turn is every time the agent must act: each tool result that reaches it (a bounded
// call's polling, a task's result), each channel event. The pull requests are idle: their checks
// run for the whole hour, nothing needs the agent. The built binary runs over stdio with a
// minimal client (rawClient) for each mode, and time is compressed turnScale times: the hour is
// 3.6 s, each host's bound a thousandth of itself (--max-block), the channel's grace too; what is
// counted is what the server does, not a formula.

// turnScale compresses time: one second of a host's is one millisecond here.
const turnScale = 1000

// idleHour is one hour, compressed.
const idleHour = time.Hour / turnScale

// turnMode is one way for an agent to wait on its pull requests.
type turnMode struct {
	name string
	prs  int // the agent's pull requests
	// bound is the host's call bound (bounded calls, monitor_id=all); zero for the others.
	bound time.Duration
	wait  func(t *testing.T, c *rawClient, refs []string) int // waits out idleHour; returns the turns
}

func turnModes() []turnMode {
	var modes []turnMode
	rows := contract.HostBounds()
	rows = append(rows, contract.HostBound{Host: "a host prmonitor does not know", Bound: contract.DefaultCallBound})
	for _, row := range rows {
		modes = append(modes, turnMode{name: "bounded calls, " + row.Host, prs: 1, bound: row.Bound, wait: waitBounded})
	}
	claude := 100 * time.Second // Claude Code's bound (HostBounds)
	return append(modes,
		turnMode{name: "bounded calls, a loop per PR, 3 PRs, Claude Code", prs: 3, bound: claude, wait: waitBounded},
		turnMode{name: "bounded calls, one loop over 3 PRs in turn, Claude Code", prs: 3, bound: claude, wait: waitInTurn},
		turnMode{name: `next_step "all" on 3 PRs, Claude Code`, prs: 3, bound: claude, wait: waitAll},
		turnMode{name: "2025-11-25 task (no time to live)", prs: 1, wait: waitLegacyTask},
		turnMode{name: "2026-07-28 task", prs: 1, wait: waitExtTask},
		turnMode{name: "Claude Code channel", prs: 1, wait: waitChannel},
	)
}

// TestTurnsPerIdlePullRequestHour measures every mode side by side and holds the targets: at most
// one turn per idle PR-hour with a channel or a task; with bounded calls one turn per bound for
// all of an agent's pull requests together (monitor_id=all), not one per pull request.
func TestTurnsPerIdlePullRequestHour(t *testing.T) {
	needBinary(t)
	figures := measureTurns(t)
	for _, name := range sortedKeys(figures) {
		t.Logf("%-50s %6.1f turns per idle PR-hour", name, figures[name])
	}
	for _, m := range turnModes() {
		got := figures[m.name]
		switch {
		case m.bound == 0:
			assert.LessOrEqual(t, got, 1.0, "%s: at most one turn per idle PR-hour", m.name)
		case strings.HasPrefix(m.name, "next_step"), strings.Contains(m.name, "in turn"):
			perHour := got * float64(m.prs)
			assert.LessOrEqual(t, perHour, float64(time.Hour/m.bound)+1, "%s: one turn per bound for all the PRs together", m.name)
		default:
			assert.LessOrEqual(t, got, float64(time.Hour/m.bound)+1, "%s: one turn per bound", m.name)
			assert.GreaterOrEqual(t, got, float64(time.Hour/m.bound)/2, "%s: and it is counted", m.name)
		}
	}
	all, each := figures[`next_step "all" on 3 PRs, Claude Code`], figures["bounded calls, a loop per PR, 3 PRs, Claude Code"]
	assert.Less(t, all*2, each, "all shares the turns of its PRs: %.1f per PR-hour against %.1f", all, each)
}

// measureTurns runs every mode at once (a process each, idle but for the watcher) and returns
// its turns per idle PR-hour.
func measureTurns(t *testing.T) map[string]float64 {
	figures := map[string]float64{}
	var mu sync.Mutex
	t.Run("modes", func(t *testing.T) {
		for _, m := range turnModes() {
			t.Run(m.name, func(t *testing.T) {
				t.Parallel()
				turns := runMode(t, m)
				mu.Lock()
				figures[m.name] = float64(turns) / float64(m.prs)
				mu.Unlock()
			})
		}
	})
	return figures
}

// runMode starts m's pull requests, idle, and waits the hour in m's way.
func runMode(t *testing.T, m turnMode) int {
	w := newWorld(t, legacy)
	var refs []string
	for n := 1; n <= m.prs; n++ {
		ref := githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}
		require.NoError(t, w.fake.Apply(ref, githubfake.OpenPR{Title: "idle"}, githubfake.ChecksQueued{Jobs: []string{"test"}}))
		refs = append(refs, fmt.Sprintf("acme/widgets#%d", n))
	}
	w.block = (m.bound / turnScale).String()
	if m.bound == 0 {
		w.block = "50ms" // unused: tasks and channels have no bound
	}
	c := w.launchRaw("--poll-busy", "50ms", "--push-grace", (5 * time.Second / turnScale).String())
	name := "turns"
	if strings.Contains(m.name, "channel") {
		name = "claude-code"
	}
	c.initialize(name, map[string]any{"tasks": map[string]any{"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}})
	for _, ref := range refs {
		c.startLegacy(ref)
	}
	return m.wait(t, c, refs)
}

// waitBounded: one loop per pull request (as an agent watching each of them does), each calling
// next_step again at each polling; every answer is a turn.
func waitBounded(t *testing.T, c *rawClient, refs []string) int {
	var mu sync.Mutex
	turns := 0
	var wg sync.WaitGroup
	end := time.Now().Add(idleHour)
	for _, ref := range refs {
		wg.Go(func() {
			for time.Now().Before(end) {
				if act := c.pollOnce(ref); act != "polling" {
					t.Errorf("idle %s: %s", ref, act)
					return
				}
				mu.Lock()
				turns++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return turns
}

// waitInTurn: one loop that calls next_step on each pull request in turn: as few turns as all,
// but an action waits up to one bound per pull request before the loop comes to it.
func waitInTurn(t *testing.T, c *rawClient, refs []string) int {
	turns := 0
	for end := time.Now().Add(idleHour); time.Now().Before(end); {
		for _, ref := range refs {
			require.Equal(t, "polling", c.pollOnce(ref))
			turns++
		}
	}
	return turns
}

// pollOnce calls next_step(event=ready) on id, a plain call, and says what came back: the
// action, or the error (it fails no test itself: loops run it on goroutines of their own).
func (c *rawClient) pollOnce(id string) string {
	res := c.call("tools/call", map[string]any{"name": "pr_monitor_next_step", "arguments": map[string]any{"monitor_id": id, "event": "ready"}})
	var r struct {
		StructuredContent contract.ActionOutput `json:"structuredContent"`
	}
	if res.Error != nil || json.Unmarshal(res.Result, &r) != nil {
		return fmt.Sprintf("no result: %+v %s", res.Error, res.Result)
	}
	return r.StructuredContent.Action
}

// waitAll: the agent calls next_step(monitor_id=all), again at each polling.
func waitAll(t *testing.T, c *rawClient, _ []string) int {
	turns := 0
	for end := time.Now().Add(idleHour); time.Now().Before(end); {
		require.Equal(t, "polling", c.pollOnce("all"))
		turns++
	}
	return turns
}

// waitLegacyTask: the agent calls next_step once, as a 2025-11-25 task without a time to live;
// the host polls tasks/get (no turn of the agent's) and the task works all hour.
func waitLegacyTask(t *testing.T, c *rawClient, refs []string) int {
	res := c.call("tools/call", map[string]any{"name": "pr_monitor_next_step", "task": map[string]any{},
		"arguments": map[string]any{"monitor_id": refs[0], "event": "ready"}})
	require.Nil(t, res.Error)
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal(res.Result, &created), string(res.Result))
	require.NotEmpty(t, created.Task.TaskID, string(res.Result))
	for end := time.Now().Add(idleHour); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		got := c.call("tasks/get", map[string]any{"taskId": created.Task.TaskID})
		require.Nil(t, got.Error)
		require.Contains(t, string(got.Result), `"working"`, "the task waits all hour")
	}
	return 1 // the call that started it
}

// waitExtTask: the agent calls next_step once; the server makes it a 2026-07-28 task, which the
// host polls (tasks/get) all hour.
func waitExtTask(t *testing.T, c *rawClient, refs []string) int {
	caps := extCaps(true)
	created := createdTask(t, c.callNext(caps, map[string]any{"monitor_id": refs[0], "event": "ready"}))
	for end := time.Now().Add(idleHour); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		require.Equal(t, "working", c.taskGet(created.TaskID).Status, "the task waits all hour")
	}
	return 1 // the call that made it
}

// waitChannel: the agent does nothing; the turns are the channel events it gets.
func waitChannel(_ *testing.T, c *rawClient, _ []string) int {
	time.Sleep(idleHour)
	return len(c.channelEvents())
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
