package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// manyWorld is a world with five open pull requests of the viewer's: #1 quiet, #2 with a merge
// conflict, #3 with a failing check, #4 a draft and #5 a Dependabot update assigned to the viewer.
func manyWorld(t *testing.T, prof profile) *world {
	t.Helper()
	w := newWorld(t, prof)
	w.block, w.flags = "3s", []string{"--budget", "100%"}
	prs := map[int][]githubfake.Event{
		1: {githubfake.OpenPR{Title: "quiet"}},
		2: {githubfake.OpenPR{Title: "conflict"}, githubfake.MergeConflict{}},
		3: {githubfake.OpenPR{Title: "red"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
			githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestX\nFAIL"}},
		4: {githubfake.OpenPR{Title: "wip", Draft: true}},
		5: {githubfake.OpenPR{Author: githubfake.Bot("dependabot"), Title: "Bump x"}, githubfake.Assign{Assignees: []githubfake.Actor{githubfake.User("dev")}}},
	}
	for n, events := range prs {
		require.NoError(t, w.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, events...))
	}
	return w
}

func (w *world) startAll(args map[string]any) contract.StartAllOutput {
	w.t.Helper()
	raw, errText := w.call("pr_monitor_start_all", args)
	require.Empty(w.t, errText)
	var out contract.StartAllOutput
	require.NoError(w.t, json.Unmarshal(raw, &out))
	return out
}

func (w *world) nextAll(event, choice string) contract.ActionOutput {
	w.t.Helper()
	args := map[string]any{"monitor_id": "all", "event": event}
	if choice != "" {
		args["choice"] = choice
	}
	raw, errText := w.call("pr_monitor_next_step", args)
	require.Empty(w.t, errText, "next_step(all, %s, %s)", event, choice)
	var out contract.ActionOutput
	require.NoError(w.t, json.Unmarshal(raw, &out))
	return out
}

// untilAction calls next_step all with ready until an action other than polling comes.
func (w *world) untilAction() contract.ActionOutput {
	w.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		act := w.nextAll("ready", "")
		if act.Action != "polling" || time.Now().After(deadline) {
			return act
		}
	}
}

// TestStartAllAndNextStepAllOverStdio: the agent starts every open pull request of the user's with
// one call and serves them with one loop, in both protocol eras: each action names its pull
// request, the answer sent with all reaches the right one, stopping one leaves the others, and
// the monitors survive a restart of the server.
func TestStartAllAndNextStepAllOverStdio(t *testing.T) {
	for _, prof := range []profile{profiles[0], profiles[2]} { // 2025-11-25 eliciting; 2026-07-28 through the agent
		t.Run(prof.name, func(t *testing.T) {
			w := manyWorld(t, prof)
			w.user = func(q question) string {
				if q.ID == "merge_conflict" {
					return "rebase"
				}
				return ""
			}
			w.launch()
			out := w.startAll(map[string]any{"include_assigned": true})
			started := map[string]bool{}
			for _, s := range out.Started {
				started[s.PR] = true
			}
			assert.Equal(t, map[string]bool{"acme/widgets#1": true, "acme/widgets#2": true, "acme/widgets#3": true}, started)
			skipped := map[string]string{}
			for _, s := range out.Skipped {
				skipped[s.PR] = s.Reason
			}
			assert.Contains(t, skipped["acme/widgets#4"], "draft")
			assert.Contains(t, skipped["acme/widgets#5"], "dependency update")
			searches := 0
			for _, r := range w.fake.Requests() {
				if strings.Contains(r.Document, "search(") {
					searches++
				}
			}
			assert.Equal(t, 1, searches, "one search request")

			// The conflict (#2) and the failing check (#3) both reach the agent, each named.
			seen := map[string]string{}
			for len(seen) < 2 {
				act := w.untilAction()
				require.NotEqual(t, "polling", act.Action, "a pull request needs attention")
				require.Equal(t, act.PR, act.MonitorID)
				require.Contains(t, []string{"acme/widgets#2", "acme/widgets#3"}, act.PR, "%+v", act)
				seen[act.PR] = act.Task
				if act.Action == "ask_user" { // the 2026-07-28 agent answers for the user
					require.Equal(t, "acme/widgets#2", act.PR)
					task := w.nextAll("user_chose", "rebase")
					require.Equal(t, "acme/widgets#2", task.PR, "the answer went to the PR that asked")
					seen[act.PR] = task.Task
				}
			}
			assert.Equal(t, "rebase", seen["acme/widgets#2"], "the user chose to rebase #2")
			assert.Equal(t, "investigate_ci_failure", seen["acme/widgets#3"])

			// Stopping #3 leaves the others; the server restarts; next_step all resumes them.
			_, errText := w.call("pr_monitor_stop", map[string]any{"monitor_id": "acme/widgets#3"})
			require.Empty(t, errText)
			w.killAndRestart()
			act := w.untilAction()
			assert.Equal(t, "acme/widgets#2", act.PR, "the restarted server hands #2's task back: %+v", act)
			assert.Equal(t, "rebase", act.Task)
			require.NoError(t, w.fake.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 1}, githubfake.MergeConflict{}))
			act = w.untilAction()
			assert.Equal(t, "acme/widgets#1", act.PR, "#1 needs attention now; #2's task was handed out: %+v", act)

			raw, errText := w.call("pr_monitor_status", map[string]any{})
			require.Empty(t, errText)
			var st contract.StatusOutput
			require.NoError(t, json.Unmarshal(raw, &st))
			require.NotNil(t, st.Watcher)
			assert.Equal(t, "100%", st.Watcher.Budget)
			requireNoToken(t, w)
		})
	}
}
