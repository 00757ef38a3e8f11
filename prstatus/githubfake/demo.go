package githubfake

import (
	"time"
)

// DemoScenario is one complete pull request story, for `prmonitor demo` and for tests that want
// a realistic timeline: CI fails, a bot and a human review, the author pushes fixes (including a
// merge from main), the reviewer approves, a conflict comes and goes, CI goes green. The viewer
// ("dev" by default in the demo) is the author.
func DemoScenario(ref Ref, author Actor) Scenario {
	alice := User("alice")
	copilot := Bot("copilot-pull-request-reviewer")
	ci := []string{"build", "test", "lint"}
	return Scenario{
		Name: "a review round trip",
		PR:   ref,
		Steps: []Step{
			{Events: []Event{
				OpenPR{Author: author, Title: "Add rate-limit aware polling", Head: "polling", Body: "Polls GitHub without hammering it.",
					Commits: []NewCommit{{Headline: "Add poller"}, {Headline: "Back off on 5xx"}}},
				ReviewRequested{Reviewers: []Actor{alice, copilot}},
				ChecksQueued{Workflow: "CI", Jobs: ci, Required: []string{"test"}},
			}},
			{After: 2 * time.Minute, Events: []Event{CheckStarted{Name: "build"}, CheckStarted{Name: "test"}, CheckStarted{Name: "lint"}}},
			{After: 4 * time.Minute, Events: []Event{
				CheckCompleted{Name: "build", Conclusion: ConclusionSuccess},
				CheckCompleted{Name: "lint", Conclusion: ConclusionSuccess},
				CheckCompleted{Name: "test", Conclusion: ConclusionFailure,
					Log: "=== RUN   TestBackoff\n    poll_test.go:41: waited 0s, want at least 1s\n--- FAIL: TestBackoff (0.00s)\nFAIL\n"},
			}},
			{After: 3 * time.Minute, Events: []Event{
				CommentReview(copilot, "Copilot reviewed 2 out of 2 changed files.",
					NewThread{Path: "poll.go", Line: 42, Body: "The retry loop never stops when the context is cancelled."}),
			}},
			{After: 20 * time.Minute, Events: []Event{
				RequestChanges(alice, "Close, but the backoff needs a cap.",
					NewThread{Path: "poll.go", Line: 57, Body: "Cap the backoff at one minute."},
					NewThread{Path: "poll.go", Line: 80, Body: "Honour Retry-After when GitHub sends it."}),
			}},
			{After: 40 * time.Minute, Events: []Event{
				Push{Commits: []NewCommit{{Headline: "Cap backoff, honour Retry-After"}}},
				MergeBase{},
				ChecksQueued{Workflow: "CI", Jobs: ci, Required: []string{"test"}},
			}},
			{After: 6 * time.Minute, Events: []Event{ChecksCompleted{Conclusion: ConclusionSuccess}}},
			{After: 30 * time.Minute, Events: []Event{
				ThreadReply{Thread: 1, By: alice, Body: "Thanks, that reads much better."},
				ThreadResolved{Thread: 1, By: alice},
				Approve(alice, "LGTM"),
			}},
			{After: 15 * time.Minute, Events: []Event{MergeConflict{}}},
			{After: 10 * time.Minute, Events: []Event{
				Rebase{},
				ChecksQueued{Workflow: "CI", Jobs: ci, Required: []string{"test"}},
				MergeableUnknown{},
			}},
			{After: 1 * time.Minute, Events: []Event{ConflictResolved{}}},
			{After: 5 * time.Minute, Events: []Event{ChecksCompleted{Conclusion: ConclusionSuccess}}},
		},
	}
}
