package tests

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Failures that are not the pull request's (docs/watcher.md#failures-that-are-not-the-pull-requests),
// played over stdio against the built binary with the fake GitHub. Each story counts the agent's
// fix tasks (investigate_ci_failure, apply_fix) and the points the monitor's reads cost.

// notOursScenario is a scenario with the fix tasks it may hand the agent. Its control is the same
// story with the base tip's checks left out, as a monitor that does not read them sees it: the
// fix tasks the feature avoids are the difference.
type notOursScenario struct {
	scenario
	fixTasks int
}

// control is the story without the base tip's checks.
func (sc notOursScenario) control() scenario {
	c := sc.scenario
	drop := func(evs []githubfake.Event) []githubfake.Event {
		return slices.DeleteFunc(slices.Clone(evs), func(e githubfake.Event) bool {
			_, onBase := e.(githubfake.BaseCheckCompleted)
			return onBase
		})
	}
	c.setup = drop(c.setup)
	c.timeline = nil
	for _, step := range sc.timeline {
		c.timeline = append(c.timeline, drop(step))
	}
	c.check = nil
	return c
}

func notOursScenarios() []notOursScenario {
	failing := []githubfake.Event{githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "--- FAIL: TestMain (0.10s)\n    main_test.go:9: config missing\nFAIL"}}
	return []notOursScenario{{
		scenario: scenario{
			name:  "base failing: the same check fails on the base tip; the monitor waits for the base, the branch is updated, merged",
			setup: append(append([]githubfake.Event{}, failing...), githubfake.BaseCheckCompleted{Name: "test", Conclusion: "FAILURE"}),
			timeline: [][]githubfake.Event{
				{githubfake.Approve(carol, "LGTM")}, // still failing on the base: the monitor keeps waiting
				{githubfake.BaseBranchMoved{}, githubfake.BaseCheckCompleted{Name: "test", Conclusion: "SUCCESS"},
					githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "Merge main", Merge: true}}},
					githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
					githubfake.Approve(carol, "LGTM again")},
			},
			answers: map[string]string{"ci_base_failing": "wait_for_base"},
			final:   "merged",
			check: func(t *testing.T, w *world, trace []string) {
				asked := append(w.askedIDs(), trace...)
				assert.True(t, slices.Contains(asked, "elicited ci_base_failing") || slices.Contains(asked, "ask_user ci_base_failing"),
					"the user is asked once: %v", asked)
			},
		},
		fixTasks: 0,
	}}
}

func TestFailuresThatAreNotThePullRequests(t *testing.T) {
	for _, sc := range notOursScenarios() {
		for _, prof := range profiles {
			t.Run(sc.name+"/"+prof.name, func(t *testing.T) {
				t.Parallel()
				w, act, trace := play(t, prof, sc.scenario)
				require.Equal(t, sc.final, act.Action, "trace:\n%s", strings.Join(trace, "\n"))
				require.Empty(t, w.fake.Forbidden(), "nothing closes a PR or deletes a branch")
				fix := fixTasks(trace)
				assert.Equal(t, sc.fixTasks, fix, "agent fix tasks; trace:\n%s", strings.Join(trace, "\n"))
				requireNoToken(t, w)
				if sc.check != nil {
					sc.check(t, w, trace)
				}
				points, polls := snapshotPoints(t, w)
				t.Logf("fix tasks %d, turns %d, %d snapshots at %.1f points each", fix, agentTurns(trace), polls, points)
			})
		}
		t.Run(sc.name+"/control", func(t *testing.T) {
			t.Parallel()
			_, act, trace := play(t, profiles[0], sc.control())
			require.Equal(t, sc.final, act.Action, "trace:\n%s", strings.Join(trace, "\n"))
			t.Logf("control: fix tasks %d, turns %d (avoided: %d)", fixTasks(trace), agentTurns(trace), fixTasks(trace)-sc.fixTasks)
			assert.Greater(t, fixTasks(trace), sc.fixTasks, "without the base's checks the agent gets fix tasks")
		})
	}
}

// agentTurns counts the tool results that reached the agent in a trace (not the user's answers it
// relayed, which are its next call).
func agentTurns(trace []string) int {
	n := 0
	for _, line := range trace {
		if !strings.HasPrefix(line, "  user") {
			n++
		}
	}
	return n
}

// fixTasks counts the agent's fix tasks in a trace: investigations of CI failures and fixes.
func fixTasks(trace []string) int {
	n := 0
	for _, line := range trace {
		if line == "execute investigate_ci_failure" || line == "execute apply_fix" {
			n++
		}
	}
	return n
}

// snapshotPoints is the mean cost of the full snapshots the server read, by GitHub's formula.
func snapshotPoints(t *testing.T, w *world) (float64, int) {
	total, n := 0, 0
	for _, r := range w.fake.Requests() {
		if r.Kind != githubfake.KindGraphQL || !strings.Contains(r.Document, "reviewThreads(") {
			continue
		}
		cost, _, err := githubfake.DocumentCost(r.Document, r.Variables)
		require.NoError(t, err)
		total += cost
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return float64(total) / float64(n), n
}
