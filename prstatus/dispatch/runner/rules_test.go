package runner_test

// Every rule of the dispatcher, run against the fake GitHub: the repository is read through
// GraphQL as on GitHub, the rules decide, the writes go through go-github's REST calls.

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestRules(t *testing.T) {
	spawn := func(typ dispatch.SpawnType, n int) func(w *world) []string {
		return func(w *world) []string { return []string{"SPAWN:" + string(typ) + ":" + itoa(n) + ":" + w.head(n)} }
	}
	none := func(*world) []string { return []string{} }
	handoff := func(n int) func(*world) []string {
		return func(*world) []string { return []string{"HANDOFF:" + itoa(n)} }
	}
	fixPlan := func(w *world, n int, text string) {
		w.on(n, githubfake.Comment{Author: worker, Body: "Fix plan for " + w.head(n)[:7] + "\n" + text})
	}

	tests := []struct {
		name     string
		setup    func(w *world)
		want     func(w *world) []string
		pr       int
		decision dispatch.Decision
		rule     dispatch.Rule
		writes   []string
	}{
		{
			name: "0: a stale wip label is removed and the pull request evaluated; its spawn adds the label afresh",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.AddLabels{Labels: []string{"wip"}})
				w.f.Advance(61 * time.Minute)
			},
			want: spawn(dispatch.SpawnSelfReview, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleSelfReview,
			writes: []string{"remove_label 3 wip", "add_label 3 wip"},
		},
		{
			name: "0: a fresh wip label skips the pull request",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.AddLabels{Labels: []string{"wip"}})
				w.f.Advance(59 * time.Minute)
			},
			want: none, pr: 3, decision: dispatch.DecisionWIP, rule: dispatch.RuleWIP, writes: []string{},
		},
		{
			name: "0: the newest labeled event counts (removed and applied again)",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.AddLabels{Labels: []string{"wip"}})
				w.f.Advance(3 * time.Hour)
				w.on(3, githubfake.RemoveLabel{Label: "wip"}, githubfake.AddLabels{Labels: []string{"wip"}})
				w.f.Advance(10 * time.Minute)
			},
			want: none, pr: 3, decision: dispatch.DecisionWIP, rule: dispatch.RuleWIP, writes: []string{},
		},
		{
			name: "0: a wip label with no labeled event in the timeline counts as stale",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.AddLabels{Labels: []string{"wip"}})
				require.NoError(w.t, w.f.Do(githubfake.Ref(w.ref(3)), func(tx *githubfake.Tx) error {
					pr, err := tx.PR()
					pr.Timeline = nil
					return err
				}))
			},
			want: spawn(dispatch.SpawnSelfReview, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleSelfReview,
			writes: []string{"remove_label 3 wip", "add_label 3 wip"},
		},
		{
			name:  "skip: a draft",
			setup: func(w *world) { w.green(3, githubfake.OpenPR{Draft: true}) },
			want:  none, pr: 3, decision: dispatch.DecisionSkip, rule: dispatch.RuleSkip, writes: []string{},
		},
		{
			name:  "skip: dependabot (dependabot in GraphQL matches the default dependabot[bot])",
			setup: func(w *world) { w.green(3, githubfake.OpenPR{Author: githubfake.Bot("dependabot")}) },
			want:  none, pr: 3, decision: dispatch.DecisionSkip, rule: dispatch.RuleSkip, writes: []string{},
		},
		{
			name: "skip: skip_authors in GraphQL's form matches the REST form",
			setup: func(w *world) {
				w.cfg.SkipAuthors = []string{"renovate"}
				w.green(3, githubfake.OpenPR{Author: githubfake.Bot("renovate")})
			},
			want: none, pr: 3, decision: dispatch.DecisionSkip, rule: dispatch.RuleSkip, writes: []string{},
		},
		{
			name: "2: changes requested",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.RequestChanges(alice, "Please split this."))
			},
			want: spawn(dispatch.SpawnFindings, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleChanges,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "2: a later COMMENTED review does not override the request",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.RequestChanges(alice, "No."))
				w.f.Advance(time.Minute)
				w.on(3, githubfake.CommentReview(alice, "Just a note."))
			},
			want: spawn(dispatch.SpawnFindings, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleChanges,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "2: a dismissed request no longer counts",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.RequestChanges(alice, "No."))
				w.f.Advance(time.Minute)
				w.on(3, githubfake.ReviewDismissed{Reviewer: alice, By: githubfake.User("maintainer")})
			},
			want: spawn(dispatch.SpawnSelfReview, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleSelfReview,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "3: conflicting with the base",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.MergeConflict{})
			},
			want: spawn(dispatch.SpawnRebase, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleConflict,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "3: mergeability still computing: wait",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.MergeableUnknown{})
			},
			want: none, pr: 3, decision: dispatch.DecisionWait, rule: dispatch.RuleConflict, writes: []string{},
		},
		{
			name: "4: a failed check",
			setup: func(w *world) {
				w.on(3, githubfake.OpenPR{Author: worker}, githubfake.ChecksQueued{Jobs: []string{"build", "test"}},
					githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
					githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure})
			},
			want: spawn(dispatch.SpawnCIFix, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleCIFailed,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "4: a failed check with a fix plan for the head (7-character prefix): a worker is on it",
			setup: func(w *world) {
				w.on(3, githubfake.OpenPR{Author: worker}, githubfake.ChecksQueued{Jobs: []string{"test"}},
					githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure})
				fixPlan(w, 3, "The test needs a fixed clock.")
			},
			want: none, pr: 3, decision: dispatch.DecisionWorking, rule: dispatch.RuleCIFailed, writes: []string{},
		},
		{
			name: "4: a fix plan for an older head does not count",
			setup: func(w *world) {
				w.on(3, githubfake.OpenPR{Author: worker})
				fixPlan(w, 3, "old")
				w.on(3, githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "more"}}}, githubfake.ChecksQueued{Jobs: []string{"test"}},
					githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure})
			},
			want: spawn(dispatch.SpawnCIFix, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleCIFailed,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "5: a configured review bot has not reviewed: wait",
			setup: func(w *world) {
				w.ready(3)
				w.cfg.ReviewBots = []dispatch.ReviewBot{{Name: "sonnet"}, {Name: "security"}}
			},
			want: none, pr: 3, decision: dispatch.DecisionWait, rule: dispatch.RuleBotMissing, writes: []string{},
		},
		{
			name: "6: checks still running: wait",
			setup: func(w *world) {
				w.on(3, githubfake.OpenPR{Author: worker}, githubfake.ChecksQueued{Jobs: []string{"build"}})
			},
			want: none, pr: 3, decision: dispatch.DecisionWait, rule: dispatch.RuleChecksPending, writes: []string{},
		},
		{
			name:  "6: no check reported on the head yet: wait",
			setup: func(w *world) { w.on(3, githubfake.OpenPR{Author: worker}) },
			want:  none, pr: 3, decision: dispatch.DecisionWait, rule: dispatch.RuleChecksPending, writes: []string{},
		},
		{
			name:  "7: no self-review of the head",
			setup: func(w *world) { w.green(3, githubfake.OpenPR{}) },
			want:  spawn(dispatch.SpawnSelfReview, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleSelfReview,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "7: a self-review by someone else does not count",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.Comment{Author: alice, Body: selfReview(w.head(3), "✅ Clean")})
			},
			want: spawn(dispatch.SpawnSelfReview, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleSelfReview,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "7: the self-review found issues",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.Comment{Author: worker, Body: selfReview(w.head(3), "⚠️\nFinding #1: no test")})
			},
			want: spawn(dispatch.SpawnSRFix, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleSelfReview,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "7: the self-review found issues and a fix plan exists: a worker is on it",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.Comment{Author: worker, Body: selfReview(w.head(3), "⚠️\nFinding #1: no test")})
				fixPlan(w, 3, "#1: add the test")
			},
			want: none, pr: 3, decision: dispatch.DecisionWorking, rule: dispatch.RuleSelfReview, writes: []string{},
		},
		{
			name: "7: a self-review without an Assessment line: wait",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.Comment{Author: worker, Body: "Self-review against " + w.head(3) + "\n\nStill reading."})
			},
			want: none, pr: 3, decision: dispatch.DecisionWait, rule: dispatch.RuleSelfReview, writes: []string{},
		},
		{
			name: "8: a bot's approval of the head lists findings and no fix plan exists",
			setup: func(w *world) {
				w.ready(3)
				w.f.Advance(time.Minute)
				w.on(3, githubfake.Approve(botAcc, botReview("sonnet", w.head(3), 1, 2)))
			},
			want: spawn(dispatch.SpawnAddressFeedback, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleBotFindings,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "8: a fix plan names some of the findings: a worker is on it",
			setup: func(w *world) {
				w.ready(3)
				w.f.Advance(time.Minute)
				w.on(3, githubfake.Approve(botAcc, botReview("sonnet", w.head(3), 1, 2)))
				fixPlan(w, 3, "Finding #1: renamed.")
			},
			want: none, pr: 3, decision: dispatch.DecisionWorking, rule: dispatch.RuleBotFindings, writes: []string{},
		},
		{
			name: "8: a fix plan names every finding: go on to the hand-off",
			setup: func(w *world) {
				w.ready(3)
				w.f.Advance(time.Minute)
				w.on(3, githubfake.Approve(botAcc, botReview("sonnet", w.head(3), 1, 2)))
				fixPlan(w, 3, "Finding #1: renamed. #2: won't fix, see the issue.")
			},
			want: handoff(3), pr: 3, decision: dispatch.DecisionHandoff, rule: dispatch.RuleHandoff,
			writes: []string{"add_label 3 ready", "add_assignee 3 alice"},
		},
		{
			name: "9: an unresolved thread without a reply",
			setup: func(w *world) {
				w.ready(3)
				w.on(3, githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 3, Body: "Why?"}))
			},
			want: spawn(dispatch.SpawnAddressFeedback, 3), pr: 3, decision: dispatch.DecisionSpawn, rule: dispatch.RuleThreads,
			writes: []string{"add_label 3 wip"},
		},
		{
			name: "9: an unresolved thread with a reply: go on to the hand-off",
			setup: func(w *world) {
				w.ready(3)
				w.on(3, githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 3, Body: "Why?"}),
					githubfake.ThreadReply{Thread: 0, By: worker, Body: "Because."})
			},
			want: handoff(3), pr: 3, decision: dispatch.DecisionHandoff, rule: dispatch.RuleHandoff,
			writes: []string{"add_label 3 ready", "add_assignee 3 alice"},
		},
		{
			name: "9: an unresolved thread without a reply and a fix plan: a worker is on it",
			setup: func(w *world) {
				w.ready(3)
				w.on(3, githubfake.CommentReview(alice, "", githubfake.NewThread{Path: "a.go", Line: 3, Body: "Why?"}))
				fixPlan(w, 3, "Answering alice's thread.")
			},
			want: none, pr: 3, decision: dispatch.DecisionWorking, rule: dispatch.RuleThreads, writes: []string{},
		},
		{
			name:  "10: every review bot evaluated the head: ready label, assignee, HANDOFF",
			setup: func(w *world) { w.ready(3) },
			want:  handoff(3), pr: 3, decision: dispatch.DecisionHandoff, rule: dispatch.RuleHandoff,
			writes: []string{"add_label 3 ready", "add_assignee 3 alice"},
		},
		{
			name: "10: already assigned to the hand-off assignee: nothing",
			setup: func(w *world) {
				w.ready(3)
				w.on(3, githubfake.AddLabels{Labels: []string{"ready"}}, githubfake.Assign{Assignees: []githubfake.Actor{alice}})
			},
			want: none, pr: 3, decision: dispatch.DecisionHandedOff, rule: dispatch.RuleHandoff, writes: []string{},
		},
		{
			name: "10: no hand-off assignee and already labelled ready: nothing",
			setup: func(w *world) {
				w.ready(3)
				w.cfg.HandoffAssignee = ""
				w.on(3, githubfake.AddLabels{Labels: []string{"ready"}})
			},
			want: none, pr: 3, decision: dispatch.DecisionHandedOff, rule: dispatch.RuleHandoff, writes: []string{},
		},
		{
			name: "10: a bot evaluated an older head: wait",
			setup: func(w *world) {
				w.ready(3)
				w.on(3, githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "fix"}}}, githubfake.ChecksQueued{Jobs: []string{"build"}},
					githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionSuccess},
					githubfake.Comment{Author: worker, Body: "placeholder"})
				w.on(3, githubfake.Comment{Author: worker, Body: selfReview(w.head(3), "✅ Clean")})
			},
			want: none, pr: 3, decision: dispatch.DecisionWait, rule: dispatch.RuleHandoff, writes: []string{},
		},
		{
			name: "10: no review bots configured: green and self-reviewed is enough",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{})
				w.on(3, githubfake.Comment{Author: worker, Body: selfReview(w.head(3), "✅ Clean")})
			},
			want: handoff(3), pr: 3, decision: dispatch.DecisionHandoff, rule: dispatch.RuleHandoff,
			writes: []string{"add_label 3 ready"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tt.setup(w)
			res := w.mustRun(false)
			assert.Equal(t, tt.want(w), lines(res))
			d := decision(t, res, tt.pr)
			assert.Equal(t, tt.decision, d.Decision, d.Reason)
			assert.Equal(t, tt.rule, d.Rule, d.Reason)
			assert.Equal(t, tt.writes, writes(res))
			assert.Len(t, w.restWrites(), len(tt.writes), "each planned write is one REST call")
			for _, m := range res.Mutations {
				assert.True(t, m.Applied, "%+v", m)
			}
			w.assertOnlyAllowedRequests(t)
		})
	}
}

func TestRuleNewIssue(t *testing.T) {
	issue := func(labels ...string) githubfake.OpenIssue {
		return githubfake.OpenIssue{Author: alice, Title: "do it", Labels: labels}
	}
	tests := []struct {
		name   string
		setup  func(w *world)
		want   []string
		writes []string
	}{
		{
			name: "the oldest unassigned bug first",
			setup: func(w *world) {
				w.on(4, issue())
				w.on(6, issue("bug"))
				w.on(8, issue("bug"))
				w.on(5, issue("bug"), githubfake.Assign{Assignees: []githubfake.Actor{alice}})
			},
			want: []string{"SPAWN:impl:6:"}, writes: []string{"add_assignee 6 worker"},
		},
		{
			name: "no bug: the oldest unassigned issue",
			setup: func(w *world) {
				w.on(4, issue("docs"), githubfake.Assign{Assignees: []githubfake.Actor{alice}})
				w.on(6, issue())
				w.on(9, issue())
			},
			want: []string{"SPAWN:impl:6:"}, writes: []string{"add_assignee 6 worker"},
		},
		{
			name: "only skipped pull requests are open",
			setup: func(w *world) {
				w.green(2, githubfake.OpenPR{Draft: true})
				w.green(3, githubfake.OpenPR{Author: githubfake.Bot("dependabot")})
				w.on(4, issue())
			},
			want: []string{"SPAWN:impl:4:"}, writes: []string{"add_assignee 4 worker"},
		},
		{
			name: "an open pull request to work on: no new issue",
			setup: func(w *world) {
				w.on(3, githubfake.OpenPR{Author: worker}, githubfake.ChecksQueued{Jobs: []string{"build"}})
				w.on(4, issue("bug"))
			},
			want: []string{}, writes: []string{},
		},
		{
			name: "S7: active WIP blocks a new issue",
			setup: func(w *world) {
				w.green(3, githubfake.OpenPR{Draft: true})
				w.on(3, githubfake.AddLabels{Labels: []string{"wip"}})
				w.on(4, issue("bug"))
			},
			want: []string{}, writes: []string{},
		},
		{
			name:  "no issue at all",
			setup: func(*world) {},
			want:  []string{}, writes: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tt.setup(w)
			res := w.mustRun(false)
			assert.Equal(t, tt.want, lines(res))
			assert.Equal(t, tt.writes, writes(res))
			for _, s := range res.Spawns {
				assert.Empty(t, s.SHA)
				assert.Contains(t, s.Task, "gh issue view "+itoa(s.Number))
			}
		})
	}
}

func TestOneSpawnPerRunAndTheRunGoesOn(t *testing.T) {
	w := newWorld(t)
	w.cfg.HandoffAssignee = "alice"
	w.green(9, githubfake.OpenPR{})
	w.on(9, githubfake.Comment{Author: worker, Body: selfReview(w.head(9), "✅ Clean")})
	w.green(2, githubfake.OpenPR{})
	w.on(2, githubfake.MergeConflict{})
	w.green(4, githubfake.OpenPR{})
	w.on(6, githubfake.OpenPR{Author: worker})
	w.green(5, githubfake.OpenPR{Draft: true})
	w.on(5, githubfake.AddLabels{Labels: []string{"wip"}})
	w.f.Advance(2 * time.Hour)
	w.green(7, githubfake.OpenPR{})
	w.on(7, githubfake.AddLabels{Labels: []string{"wip"}})

	res := w.mustRun(false)
	assert.Equal(t, []string{"SPAWN:rebase:2:" + w.head(2), "HANDOFF:9"}, lines(res), "the lowest pull request needing a worker; the hand-off still happens")
	assert.Equal(t, dispatch.DecisionDeferred, decision(t, res, 4).Decision)
	assert.Equal(t, dispatch.DecisionSkip, decision(t, res, 5).Decision, "the stale lock is removed, then the draft skipped")
	assert.Equal(t, dispatch.DecisionWait, decision(t, res, 6).Decision)
	assert.Equal(t, dispatch.DecisionWIP, decision(t, res, 7).Decision, "S6: active WIP does not end the run")
	assert.Equal(t, dispatch.DecisionHandoff, decision(t, res, 9).Decision)
	assert.Equal(t, []string{"remove_label 5 wip", "add_label 9 ready", "add_assignee 9 alice", "add_label 2 wip"}, writes(res),
		"stale locks first, hand-offs, then the spawn's lock")

	w2 := newWorld(t)
	w2.cfg.MaxSpawns = 2
	w2.green(2, githubfake.OpenPR{})
	w2.green(4, githubfake.OpenPR{})
	w2.green(6, githubfake.OpenPR{})
	res = w2.mustRun(false)
	assert.Equal(t, []string{"SPAWN:self-review:2:" + w2.head(2), "SPAWN:self-review:4:" + w2.head(4)}, lines(res), "max_spawns: 2")
	assert.Equal(t, dispatch.DecisionDeferred, decision(t, res, 6).Decision)
}
