package tests

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Auto-merge and merge queues on the user's word (issue 18 item 6), end to end: the built binary
// over stdio against the fake GitHub, at both protocol eras with elicitation and without it (the
// agent relays the question).

// autoMergeEvents is an approved pull request whose required check (the base branch's protection
// requires it) still runs, on a repository that allows auto-merge.
func autoMergeEvents() []githubfake.Event {
	return []githubfake.Event{githubfake.OpenPR{Title: "Add retries"}, githubfake.AllowAutoMerge{Allowed: true},
		githubfake.ProtectBranch{Rules: &githubfake.BranchRules{RequiredChecks: []string{"test"}}},
		githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.Approve(carol, "LGTM")}
}

// answerWhenAsked calls ready until question id is asked, and answers it with choice: in the
// host's form (the world's user does, with elicitation) or, without elicitation, relayed by the
// agent. It returns the last action.
func answerWhenAsked(t *testing.T, w *world, id, choice string) contract.ActionOutput {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 15*time.Second {
		before := len(w.askedIDs())
		act := w.next("ready", "", nil)
		if act.Action == "ask_user" && string(act.Question.ID) == id && !w.prof.elicit {
			w.answered(choice)
			return w.next("user_chose", choice, nil)
		}
		if slices.Contains(w.askedIDs()[before:], "elicited "+id) {
			return act
		}
	}
	t.Fatalf("%s was never asked", id)
	return contract.ActionOutput{}
}

// callsUntil calls ready until done holds (15 s at most): the GitHub work a choice asks for is done
// in the call that answers, or in the next when that call's short --max-block ended before the
// work began (a loaded machine under -race).
func callsUntil(t *testing.T, w *world, done func() bool) {
	t.Helper()
	for start := time.Now(); !done(); {
		require.Less(t, time.Since(start), 15*time.Second, "the work was never done")
		w.next("ready", "", nil)
	}
}

// answerIn is a user who answers question id with choice and leaves everything else to themselves.
func answerIn(id, choice string) func(question) string {
	return func(q question) string {
		if q.ID == id {
			return choice
		}
		return "handle_myself"
	}
}

// untilAction calls ready until the action is want.
func untilAction(t *testing.T, w *world, want string) contract.ActionOutput {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 15*time.Second {
		if act := w.next("ready", "", nil); act.Action == want {
			return act
		}
	}
	t.Fatalf("never %s", want)
	return contract.ActionOutput{}
}

// TestAutoMergeIsOfferedAndTurnedOnOnlyOnTheUsersChoice: checks still running, the user is asked
// whether GitHub should merge by itself; on their auto_merge the server turns it on, pinned to the
// head they saw, and watches until GitHub merges the pull request when the check passes.
func TestAutoMergeIsOfferedAndTurnedOnOnlyOnTheUsersChoice(t *testing.T) {
	for _, prof := range profiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := launched(t, prof, answerIn("merge_when_ready", "auto_merge"), autoMergeEvents()...)
			assert.Zero(t, w.fake.MutationCalls("enablePullRequestAutoMerge"), "nothing before the user's word")
			act := answerWhenAsked(t, w, "merge_when_ready", "auto_merge")
			assert.Equal(t, "polling", act.Action, "%+v", act)
			callsUntil(t, w, func() bool { return w.fake.MutationCalls("enablePullRequestAutoMerge") > 0 })
			require.Equal(t, 1, w.fake.MutationCalls("enablePullRequestAutoMerge"))
			var head string
			require.NoError(t, w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) {
				head = pr.HeadOID()
				require.NotNil(t, pr.AutoMerge, "auto-merge is on")
			}))
			assert.Contains(t, attentionReason(t, w), "auto-merge is on")

			w.apply(githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"})
			act = untilAction(t, w, "merged")
			merges := w.fake.Merges()
			require.Len(t, merges, 1)
			assert.Equal(t, githubfake.ThroughAutoMerge, merges[0].Through, "GitHub merged it by itself")
			assert.Zero(t, w.fake.MutationCalls("mergePullRequest"), "the server merged nothing directly")
			assert.NotEmpty(t, head)
		})
	}
}

// TestAPushTurnsAutoMergeOffAgainAndTellsTheUser: after the user turned auto-merge on, a new push
// is something they did not see: the server turns auto-merge off and says so, and GitHub merges
// nothing.
func TestAPushTurnsAutoMergeOffAgainAndTellsTheUser(t *testing.T) {
	for _, prof := range profiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := launched(t, prof, func(q question) string {
				switch q.ID {
				case "merge_when_ready":
					return "auto_merge"
				case "auto_merge_off":
					return "resume"
				}
				return "handle_myself"
			}, autoMergeEvents()...)
			answerWhenAsked(t, w, "merge_when_ready", "auto_merge")
			callsUntil(t, w, func() bool { return w.fake.MutationCalls("enablePullRequestAutoMerge") > 0 })
			require.Equal(t, 1, w.fake.MutationCalls("enablePullRequestAutoMerge"))

			w.apply(githubfake.Push{Commits: githubfake.Commits(1, "more")})
			start := time.Now()
			told := false
			for !told && time.Since(start) < 15*time.Second {
				before := len(w.elicitedSnapshot())
				act := w.next("ready", "", nil)
				if act.Action == "ask_user" && act.Question.ID == "auto_merge_off" {
					assert.Contains(t, act.Question.Text, "Auto-merge is off again")
					assert.Contains(t, act.Question.Text, "the head moved")
					w.next("user_chose", "resume", nil)
					told = true
				}
				for _, q := range w.elicitedSnapshot()[before:] {
					if q.ID == "auto_merge_off" {
						assert.Contains(t, q.Text, "Auto-merge is off again")
						assert.Contains(t, q.Text, "the head moved")
						told = true
					}
				}
			}
			require.True(t, told, "the user is told auto-merge is off")
			assert.Equal(t, 1, w.fake.MutationCalls("disablePullRequestAutoMerge"))
			require.NoError(t, w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) {
				assert.Nil(t, pr.AutoMerge, "off on GitHub")
			}))
			assert.Empty(t, w.fake.Merges(), "GitHub merged nothing the user did not see")
		})
	}
}

// TestAnAgentsForgedAutoMergeIsRefusedWhenTheClientElicits: auto_merge is a merge: the agent cannot
// choose it for a question the host can show the user.
func TestAnAgentsForgedAutoMergeIsRefusedWhenTheClientElicits(t *testing.T) {
	for _, prof := range profiles[:2] {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := launched(t, prof, func(question) string { return "" }, autoMergeEvents()...) // the user dismisses the form
			var act contract.ActionOutput
			for start := time.Now(); act.Action != "ask_user" && time.Since(start) < 15*time.Second; {
				act = w.next("ready", "", nil)
			}
			requireAskID(t, act, "merge_when_ready")
			_, errText := w.call("pr_monitor_next_step", map[string]any{"monitor_id": "acme/widgets#7", "event": "user_chose",
				"choice": "auto_merge", "question_seq": act.Question.Seq})
			assert.Contains(t, errText, "refused, nothing changed")
			assert.Zero(t, w.fake.MutationCalls("enablePullRequestAutoMerge"), "nothing turned on")
		})
	}
}

// TestAMergeQueueRepositoryEnqueuesOnMerge: where the base branch requires a merge queue, the user's
// merge adds the pull request to the queue at the head they saw (no direct merge is sent), and the
// monitor watches until the queue merges it.
func TestAMergeQueueRepositoryEnqueuesOnMerge(t *testing.T) {
	for _, prof := range profiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := launched(t, prof, answerIn("ready_to_merge", "merge"), githubfake.OpenPR{Title: "Add retries"},
				githubfake.AddRuleset{MergeQueue: true}, githubfake.ChecksQueued{Jobs: []string{"test"}},
				githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}, githubfake.Approve(carol, "LGTM"))
			act := answerWhenAsked(t, w, "ready_to_merge", "merge")
			assert.Equal(t, "polling", act.Action, "%+v", act)
			callsUntil(t, w, func() bool { return w.fake.MutationCalls("enqueuePullRequest") > 0 })
			require.Equal(t, 1, w.fake.MutationCalls("enqueuePullRequest"))
			require.NoError(t, w.fake.View(githubfake.Ref(w.ref), func(pr *githubfake.PullRequest) {
				require.NotNil(t, pr.Queued, "in the queue")
				assert.Equal(t, pr.HeadOID(), pr.Queued.HeadOID)
			}))
			w.fake.Advance(time.Minute) // the queue's checks pass
			untilAction(t, w, "merged")
			merges := w.fake.Merges()
			require.Len(t, merges, 1, "no direct merge was attempted: %+v", merges)
			assert.Equal(t, githubfake.ThroughMergeQueue, merges[0].Through)
			assert.Zero(t, w.fake.MutationCalls("mergePullRequest"))
		})
	}
}
