package tests

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// GitHub as it behaves (docs/watcher.md), end to end: the built binary over stdio against the fake
// GitHub, at both protocol eras.

// untilAsked calls next_step(ready) until the server asks the user (with elicitation, the
// question was elicited: the user leaves the merge to themselves), or gives up after limit. It
// returns the actions the calls gave, the question's id and how long it took.
func untilAsked(t *testing.T, w *world, limit time.Duration) (acts []contract.ActionOutput, asked string, took time.Duration) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		act := w.next("ready", "", nil)
		acts = append(acts, act)
		if act.Action == "ask_user" {
			return acts, string(act.Question.ID), time.Since(start)
		}
		if ids := w.askedIDs(); len(ids) > 0 {
			return acts, strings.TrimPrefix(ids[len(ids)-1], "elicited "), time.Since(start)
		}
	}
	return acts, "", time.Since(start)
}

// behaviourProfiles are the two protocol eras, with elicitation and without.
var behaviourProfiles = []profile{profiles[0], profiles[2]}

// greenApprovedWithBobsThread is a pull request approved by carol, its checks passed, with one
// thread of bob's, and whatever else the base branch has.
func greenApprovedWithBobsThread(extra ...githubfake.Event) []githubfake.Event {
	return append(append([]githubfake.Event{githubfake.OpenPR{Title: "Add retries"}}, extra...),
		githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		githubfake.CommentReview(bob, "", githubfake.NewThread{Path: "retry.go", Line: 3, Body: "Is the budget right?"}),
		githubfake.Approve(carol, "LGTM"))
}

// launched is a world with the pull request as events make it, the user answering with user,
// the server running and the monitor started.
func launched(t *testing.T, prof profile, user func(question) string, events ...githubfake.Event) *world {
	t.Helper()
	w := newWorld(t, prof)
	w.apply(events...)
	w.user = user
	w.launch()
	w.start()
	return w
}

// attentionReason is the reason pr_monitor_status gives for the monitor's top attention.
func attentionReason(t *testing.T, w *world) string {
	t.Helper()
	raw, errText := w.call("pr_monitor_status", map[string]any{"monitor_id": "acme/widgets#7"})
	require.Empty(t, errText)
	var out struct {
		Monitors []contract.MonitorStatus `json:"monitors"`
	}
	require.NoError(t, json.Unmarshal(raw, &out))
	require.Len(t, out.Monitors, 1)
	require.NotNil(t, out.Monitors[0].Detail, "%s", raw)
	return out.Monitors[0].Detail.AttentionReason
}

// TestAThreadTheReviewerResolvesIsSeenAtOnce is issue 18's first item: the pull request is
// approved and green, but one of bob's threads still needs action (the user said they would
// handle it), so nobody is asked to merge. bob resolves the thread himself, which moves no
// timestamp on GitHub and, without a rule on conversations, not the merge state either: only the
// watcher's thread states catch it, within a cycle or two, and the merge question comes, not at
// the safety refresh two hours later.
func TestAThreadTheReviewerResolvesIsSeenAtOnce(t *testing.T) {
	for _, prof := range behaviourProfiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, prof)
			w.apply(greenApprovedWithBobsThread()...)
			w.model = func(*sdk.CreateMessageParams) string { return "Reply: the budget is right." }
			w.user = func(q question) string {
				if q.ID == "comments_manual" {
					return "done_handling"
				}
				return "handle_myself"
			}
			w.launch()
			w.start()
			act := w.next("ready", "", nil)
			for range 6 { // the comment flow, left to the user
				switch {
				case act.Task == "explain_comment":
					act = w.next("task_complete", "", map[string]any{"recommendation": "Reply: the budget is right."})
				case act.Action == "ask_user":
					act = w.next("user_chose", w.user(question{ID: string(act.Question.ID)}), nil)
				default:
					act = w.next("ready", "", nil)
				}
			}
			require.Equal(t, "polling", act.Action, "bob's thread still needs action: nobody is asked to merge: %+v", act)
			before := len(w.askedIDs())
			require.NotContains(t, w.askedIDs(), "elicited ready_to_merge")

			w.apply(githubfake.ThreadResolved{Thread: 0, By: bob})
			start := time.Now()
			for time.Since(start) < 10*time.Second {
				act = w.next("ready", "", nil)
				if act.Action == "ask_user" || slices.Contains(w.askedIDs()[before:], "elicited ready_to_merge") {
					break
				}
			}
			if act.Action == "ask_user" {
				requireAskID(t, act, "ready_to_merge")
			} else {
				require.Contains(t, w.askedIDs()[before:], "elicited ready_to_merge", "the resolve is caught and the merge question comes")
			}
			t.Logf("asked %s after the resolve", time.Since(start))
			require.Empty(t, w.fake.Merges())
		})
	}
}

// TestAConversationGitHubWantsResolvedHoldsTheQuestionAndSaysWhy is issue 18's second item:
// the base branch requires every conversation resolved, the pull request is approved and green,
// and one thread waits for its reviewer. GitHub blocks the merge: nobody is asked, and the waiting
// text says why. Once the reviewer resolves it the merge question comes.
func TestAConversationGitHubWantsResolvedHoldsTheQuestionAndSaysWhy(t *testing.T) {
	for _, prof := range behaviourProfiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := launched(t, prof, func(question) string { return "handle_myself" }, append(greenApprovedWithBobsThread(
				githubfake.ProtectBranch{Rules: &githubfake.BranchRules{ConversationResolution: true}}),
				githubfake.ThreadReply{Thread: 0, By: githubfake.User("dev"), Body: "Yes: three attempts, as the issue says."})...)
			for range 3 {
				act := w.next("ready", "", nil)
				require.Equal(t, "polling", act.Action, "GitHub blocks the merge: nobody is asked: %+v", act)
			}
			require.Contains(t, attentionReason(t, w), "GitHub blocks the merge: every conversation must be resolved", "the waiting text says why")
			require.Empty(t, w.askedIDs())

			w.apply(githubfake.ThreadResolved{Thread: 0, By: bob})
			_, asked, _ := untilAsked(t, w, 10*time.Second)
			require.Equal(t, "ready_to_merge", asked)
			require.Empty(t, w.fake.Merges())
		})
	}
}

// TestARequiredCheckThatHasNotStartedIsWaitedFor is issue 18's third item: the base branch
// requires "build"; the pull request is approved, but no check has reported on its head (GitHub's
// rollup is null right after a push). That is "waiting for checks to start", with no question;
// another check passing changes nothing; the question comes once build has reported and passed.
func TestARequiredCheckThatHasNotStartedIsWaitedFor(t *testing.T) {
	for _, prof := range behaviourProfiles {
		t.Run(prof.name, func(t *testing.T) {
			t.Parallel()
			w := launched(t, prof, func(question) string { return "handle_myself" }, githubfake.OpenPR{Title: "Add retries"},
				githubfake.ProtectBranch{Rules: &githubfake.BranchRules{RequiredChecks: []string{"build"}}},
				githubfake.Approve(carol, "LGTM"))
			act := w.next("ready", "", nil)
			require.Equal(t, "polling", act.Action, "%+v", act)
			require.Contains(t, attentionReason(t, w), "Waiting for checks to start: 1 required check has not reported")

			w.apply(githubfake.ExternalCheck{Name: "lint", Conclusion: "SUCCESS"})
			for range 3 {
				act = w.next("ready", "", nil)
				require.Equal(t, "polling", act.Action, "lint passed, build has not reported: %+v", act)
			}
			require.Contains(t, attentionReason(t, w), "Waiting for checks to start")
			require.Empty(t, w.askedIDs(), "no question while a required check has not reported")

			w.apply(githubfake.ChecksQueued{Jobs: []string{"build"}})
			act = w.next("ready", "", nil)
			require.Equal(t, "polling", act.Action)
			require.Empty(t, w.askedIDs())

			w.apply(githubfake.CheckCompleted{Name: "build", Conclusion: "SUCCESS"})
			acts, asked, _ := untilAsked(t, w, 10*time.Second)
			require.Equal(t, "ready_to_merge", asked, "build passed: %+v", acts)
			require.False(t, slices.ContainsFunc(acts[:len(acts)-1], func(a contract.ActionOutput) bool { return a.Action == "ask_user" }))
		})
	}
}
