package tests

import (
	"fmt"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Stacked pull requests over stdio (docs/watcher.md#stacked-pull-requests): #1 on main, #2 on
// #1's branch, #3 on #2's, each approved and green, in a repository that deletes head branches on
// merge. One agent loop (next_step "all") serves them: the lowest first; an upper one's merge
// question waits for the lower one by default; each lower one is squash-merged, GitHub retargets
// the one above onto main, and its rebase task carries the exact `git rebase --onto`.
func TestAStackOfThreeMergesBottomUp(t *testing.T) {
	w := newWorld(t, profiles[2]) // 2026-07-28 through the agent: every question comes to the loop
	w.block, w.flags = "3s", []string{"--budget", "100%"}
	ref := func(n int) githubfake.Ref { return githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n} }
	green := []githubfake.Event{githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}}
	for n, base := range map[int]string{1: "main", 2: "part-1", 3: "part-2"} {
		events := append([]githubfake.Event{githubfake.OpenPR{Title: fmt.Sprintf("Part %d", n), Head: fmt.Sprintf("part-%d", n), Base: base},
			githubfake.DeleteBranchOnMerge{}}, green...)
		require.NoError(t, w.fake.Apply(ref(n), append(events, githubfake.Approve(carol, "LGTM"))...))
	}
	w.launch()
	out := w.startAll(map[string]any{})
	var order []string
	for _, s := range out.Started {
		order = append(order, s.PR)
	}
	assert.Equal(t, []string{"acme/widgets#1", "acme/widgets#2", "acme/widgets#3"}, order, "start_all lists the stack bottom up")

	// The old base tips, as the upper pull requests saw them: the lower ones' heads.
	tips := map[int]string{2: w.fake.PR(ref(1)).HeadOID(), 3: w.fake.PR(ref(2)).HeadOID()}
	merged, asked, rebases := map[string]bool{}, map[string][]string{}, map[string]string{}
	var trace []string
	var reply contract.ActionOutput // what the last answer brought back
	for step := 0; len(merged) < 3 && step < 60; step++ {
		act := reply
		if act.Action == "" || act.Action == "polling" {
			act = w.untilAction()
		}
		reply = contract.ActionOutput{}
		trace = append(trace, act.PR+": "+describe(act))
		switch act.Action {
		case "polling":
			t.Fatalf("stuck:\n%s", strings.Join(trace, "\n"))
		case "merged":
			merged[act.PR] = true
		case "ask_user":
			asked[act.PR] = append(asked[act.PR], string(act.Question.ID))
			switch act.Question.ID {
			case "ready_stacked":
				assert.Contains(t, act.Question.Text, "merges it into #")
				reply = w.nextAll("user_chose", "wait_for_lower") // the default
			case "ready_to_merge":
				for n := 1; n < prNumber(act.PR); n++ {
					require.True(t, merged[fmt.Sprintf("acme/widgets#%d", n)], "%s asked to merge before #%d merged:\n%s", act.PR, n, strings.Join(trace, "\n"))
				}
				w.answered("merge")
				reply = w.nextAll("user_chose", "merge")
			default:
				t.Fatalf("unexpected question %s:\n%s", act.Question.ID, strings.Join(trace, "\n"))
			}
		case "execute":
			require.Equal(t, "rebase", act.Task, "%+v", act)
			n := prNumber(act.PR)
			rebases[act.PR] = act.Context.Note
			w.fake.Advance(time.Minute) // the new approval comes after the first
			require.NoError(t, w.fake.Apply(ref(n), append(append([]githubfake.Event{githubfake.Rebase{}}, green...), githubfake.Approve(carol, "LGTM again"))...))
			reply = w.nextAll("push_completed", "")
		default:
			t.Fatalf("unexpected action %q:\n%s", act.Action, strings.Join(trace, "\n"))
		}
	}
	require.Len(t, merged, 3, "trace:\n%s", strings.Join(trace, "\n"))
	require.Len(t, rebases, 2, "#2 and #3 were rebased after their lower one merged:\n%s", strings.Join(trace, "\n"))
	for n := 2; n <= 3; n++ {
		var squash string
		require.NoError(t, w.fake.PR(ref(n-1)).View(func(pr *githubfake.PullRequest) { squash = pr.MergeCommitOID }))
		assert.Contains(t, rebases[fmt.Sprintf("acme/widgets#%d", n)], fmt.Sprintf("`git rebase --onto %s %s`", squash, tips[n]),
			"#%d: onto the squash of #%d, from #%d's head", n, n-1, n-1)
	}
	order = nil
	for _, m := range w.fake.Merges() {
		if m.Merged {
			order = append(order, m.Ref.String())
		}
	}
	assert.Equal(t, []string{"acme/widgets#1", "acme/widgets#2", "acme/widgets#3"}, order, "merged bottom up")
	require.Empty(t, w.fake.Forbidden(), "nothing closes a PR or deletes a branch")
	requireNoToken(t, w)
	points, polls := snapshotPoints(t, w)
	t.Logf("turns %d, questions %v, rebase tasks %d, %d snapshots at %.1f points each", len(trace), asked, len(rebases), polls, points)
}

func prNumber(pr string) int {
	var n int
	_, _ = fmt.Sscanf(pr[strings.LastIndex(pr, "#")+1:], "%d", &n)
	return n
}
