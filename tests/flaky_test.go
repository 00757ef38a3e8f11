package tests

import (
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
)

// Flaky checks over stdio (docs/watcher.md#flaky-checks). The repository's failure memory already
// knows TestRetry's timeout as flaky (it failed and then passed on a re-run of the same commit of
// #41, in an earlier session): the state directory holds it, as the server left it.

// flakyLog is the failing job's log; durations differ from the run #41 remembers.
const flakyLog = "=== RUN TestRetry\n--- FAIL: TestRetry (1.02s)\n    retry_test.go:12: timeout after 1.5s\nFAIL"

// rememberFlaky writes the failure memory a server left after #41's failure passed on a re-run.
func rememberFlaky(w *world) {
	w.t.Helper()
	sig := prstatus.SignatureOf("test", "--- FAIL: TestRetry (0.97s)\n    retry_test.go:12: timeout after 2s\n")
	var m rounds.FlakyMemory
	at := w.fake.Now().Add(-24 * time.Hour)
	m.Failed("acme/widgets", sig, 41, "c41", 4101, at)
	m.Passed("acme/widgets", 41, "c41", []string{"test"}, at.Add(10*time.Minute))
	ep, err := ghclient.ResolveEndpoints(func(string) string { return "" }, w.fake.URL())
	require.NoError(w.t, err)
	st, err := store.Open(w.stateDir, nil)
	require.NoError(w.t, err)
	require.NoError(w.t, st.SaveFailures(ep.REST, m))
}

// rerunsEnd makes every re-run job end with conclusion, a minute later.
func rerunsEnd(conclusion string, reruns *atomic.Int32) githubfake.Option {
	return githubfake.WithRerunHook(func(githubfake.RerunJob) githubfake.RerunOutcome {
		reruns.Add(1)
		log := ""
		if conclusion != githubfake.ConclusionSuccess {
			log = flakyLog
		}
		return githubfake.RerunOutcome{Conclusion: conclusion, After: time.Minute, Log: log}
	})
}

type flakyScenario struct {
	scenario
	reruns   *atomic.Int32
	fixTasks int
	// wantReruns is how many re-runs GitHub saw (the server's own, at most one per head).
	wantReruns int32
}

func flakyScenarios() []flakyScenario {
	failing := []githubfake.Event{githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: flakyLog}}
	evidence := func(w *world, act contract.ActionOutput) (string, map[string]any) {
		require.NotEmpty(w.t, act.Context.Logs)
		assert.Contains(w.t, act.Context.Logs[0].Flaky, "passed on a re-run of the same commit on #41", "the task carries the evidence")
		return defaultAgent(w, act)
	}
	approve := [][]githubfake.Event{{githubfake.Approve(carol, "LGTM")}}
	green, red, touched := &atomic.Int32{}, &atomic.Int32{}, &atomic.Int32{}
	return []flakyScenario{
		{
			scenario: scenario{
				name:     "flaky then green: a known flaky failure is re-run by the server, passes, merged",
				setup:    append(append([]githubfake.Event{}, failing...), githubfake.FilesChanged{Paths: []string{"retry.go"}}),
				prepare:  rememberFlaky,
				fake:     []githubfake.Option{rerunsEnd(githubfake.ConclusionSuccess, green)},
				timeline: approve,
				final:    "merged",
				check: func(t *testing.T, w *world, _ []string) {
					ep, err := ghclient.ResolveEndpoints(func(string) string { return "" }, w.fake.URL())
					require.NoError(t, err)
					st, err := store.Open(w.stateDir, nil)
					require.NoError(t, err)
					m, err := st.LoadFailures(ep.REST)
					require.NoError(t, err)
					e := m.Evidence("acme/widgets", prstatus.SignatureOf("test", flakyLog))
					assert.Equal(t, []int{7, 41}, e.PassedOnRerun, "the pass on the re-run of #7's head is remembered")
				},
			},
			reruns: green, fixTasks: 0, wantReruns: 1,
		},
		{
			scenario: scenario{
				name:     "flaky then red: the server's one re-run fails again; the agent gets the failure with the evidence",
				setup:    append(append([]githubfake.Event{}, failing...), githubfake.FilesChanged{Paths: []string{"retry.go"}}),
				prepare:  rememberFlaky,
				fake:     []githubfake.Option{rerunsEnd(githubfake.ConclusionFailure, red)},
				agent:    map[string]func(*world, contract.ActionOutput) (string, map[string]any){"investigate_ci_failure": evidence},
				timeline: append([][]githubfake.Event{{}}, approve...), // the re-run ends, then the fix is approved
				final:    "merged",
			},
			reruns: red, fixTasks: 2, wantReruns: 1,
		},
		{
			scenario: scenario{
				name:     "flaky in a test the PR changes: no re-run, the agent gets it at once with the evidence",
				setup:    append(append([]githubfake.Event{}, failing...), githubfake.FilesChanged{Paths: []string{"retry.go", "retry_test.go"}}),
				prepare:  rememberFlaky,
				fake:     []githubfake.Option{rerunsEnd(githubfake.ConclusionSuccess, touched)},
				agent:    map[string]func(*world, contract.ActionOutput) (string, map[string]any){"investigate_ci_failure": evidence},
				timeline: approve,
				final:    "merged",
			},
			reruns: touched, fixTasks: 2, wantReruns: 0,
		},
	}
}

func TestFlakyChecks(t *testing.T) {
	for _, sc := range flakyScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			// One client profile: the re-run counter is the story's own.
			w, act, trace := play(t, profiles[0], sc.scenario)
			require.Equal(t, sc.final, act.Action, "trace:\n%s", strings.Join(trace, "\n"))
			require.Empty(t, w.fake.Forbidden(), "nothing closes a PR or deletes a branch")
			assert.Equal(t, sc.fixTasks, fixTasks(trace), "agent fix tasks; trace:\n%s", strings.Join(trace, "\n"))
			assert.Equal(t, sc.wantReruns, sc.reruns.Load(), "re-runs GitHub saw")
			requireNoToken(t, w)
			if sc.check != nil {
				sc.check(t, w, trace)
			}
			points, polls := snapshotPoints(t, w)
			t.Logf("fix tasks %d, turns %d, re-runs %d, %d snapshots at %.1f points each", fixTasks(trace), agentTurns(trace), sc.reruns.Load(), polls, points)
		})
	}
	t.Run("control: automatic re-runs off", func(t *testing.T) {
		sc := flakyScenarios()[0]
		sc.flags = []string{"--no-auto-rerun"}
		_, act, trace := play(t, profiles[0], sc.scenario)
		require.Equal(t, "merged", act.Action, "trace:\n%s", strings.Join(trace, "\n"))
		assert.Equal(t, int32(0), sc.reruns.Load(), "no re-run without the user")
		assert.Equal(t, 2, fixTasks(trace), "the flaky failure goes to the agent")
		t.Logf("control: fix tasks %d, turns %d (avoided with automatic re-runs: %d)", fixTasks(trace), agentTurns(trace), fixTasks(trace))
	})
}
