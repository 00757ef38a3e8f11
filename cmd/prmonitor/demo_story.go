package main

import (
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/rounds"
)

// The demo's story: CI fails and is fixed, a reviewer requests changes with three threads, the agent
// refines and answers each thread (pushing back on one), the reviewer accepts the pushback and
// approves, and the user chooses to merge.

var (
	demoTitle    = "Retry the poller with backoff"
	demoReviewer = githubfake.User("bob")
)

// demoSetup is the pull request as the agent pushes it: CI fails on the first commit.
func demoSetup() []githubfake.Event {
	return []githubfake.Event{
		githubfake.OpenPR{Title: demoTitle, Commits: []githubfake.NewCommit{{Headline: "Retry the poller with exponential backoff"}}},
		githubfake.ChecksQueued{Jobs: []string{"test", "lint"}},
		githubfake.CheckCompleted{Name: "lint", Conclusion: "SUCCESS"},
		githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "=== RUN   TestPollerRetries\n" +
			"    poller_test.go:41: poll did not finish within 1s\n--- FAIL: TestPollerRetries (1.00s)\nFAIL\nFAIL\tgithub.com/octo-org/poller\t1.012s\n"},
	}
}

// demoTimeline is what people do while the monitor waits, one step each time nothing else happens.
func demoTimeline() [][]githubfake.Event {
	return [][]githubfake.Event{
		{githubfake.RequestChanges(demoReviewer, "Close. A few things before this can go in.",
			githubfake.NewThread{Path: "poller.go", Line: 14, Body: "Handle ctx.Done() while sleeping between attempts."},
			githubfake.NewThread{Path: "poller.go", Line: 31, Body: "Use a time.Ticker here instead of a Timer."},
			githubfake.NewThread{Path: "poller_test.go", Line: 8, Body: "Add a test for the backoff cap."})},
		{githubfake.ThreadReply{Thread: 1, By: demoReviewer, Body: "Fair point: a Timer reset per attempt is right here."}},
		{githubfake.Approve(demoReviewer, "Thanks, looks good.")},
	}
}

// demoAnswers is the user: what they pick for each question.
var demoAnswers = map[string]string{
	"ci_results": "apply_fix", "comments_multi": "address_all", "comment_item": "address",
	"comment_single": "resolve", "comment_explained": "apply_recommendation", "comments_remaining": "continue",
	"ready_to_merge": "merge", "recovery": "back_to_task", "action_failed": "retry", "merge_conflict": "rebase",
}

// demoAgent is the coding agent: what it does for each task, and the commits it pushes.
func (d *demoSession) demoAgent(act contract.ActionOutput) (event string, data map[string]any, did string) {
	switch act.Task {
	case "investigate_ci_failure":
		return "investigation_complete", map[string]any{
			"findings":      "TestPollerRetries gives up after 1s, but the first backoff already waits 2s.",
			"suggested_fix": "Start the backoff at 100ms and cap each wait at the poll timeout.",
			"issue_type":    "code",
		}, "reads the log tail and finds the cause"
	case "apply_fix":
		d.push("Start the backoff at 100ms and cap it")
		return "push_completed", nil, "applies the fix and pushes it"
	case "refine":
		d.push("Handle ctx.Done while sleeping; test the backoff cap")
		return "push_completed", nil, "changes the code for bob's review and pushes it"
	case "address_comment", "apply_recommendation":
		body := string(act.Context.Thread.Comment)
		if strings.Contains(body, "Ticker") {
			return "comment_replied", map[string]any{"reply_text": "A Ticker keeps firing while an attempt is still running; " +
				"a Timer reset per attempt gives the backoff exactly. TestPollerBackoffCap pins it."}, "pushes back on the Ticker comment, with a test as evidence"
		}
		return "comment_addressed", map[string]any{"reply_text": "Done in the last push."}, "confirms the thread is handled by the pushed commit"
	case "explain_comment":
		return "task_complete", map[string]any{"recommendation": "Agree (no change): the reviewer accepts the reply; resolve the thread."}, "explains the thread"
	case "compose_reply":
		return act.ExpectedEvents[0], map[string]any{"reply_text": "Done."}, "writes the reply"
	case "rebase":
		d.push("Rebase onto main")
		return "push_completed", nil, "rebases and pushes"
	}
	return "task_complete", nil, "does the task"
}

// demoModel is the host's model, answering the server's sampling requests as a real model would
// (a concern category for a review thread, a verdict on a reviewer's reply), and said says what it
// answered in words for the transcript: a newcomer reads what the model decided, not its JSON.
func demoModel(req mcp.CreateMessageRequest) (reply, said string) {
	switch system := req.SystemPrompt; {
	case strings.Contains(system, "concern category"):
		c := demoConcern(samplingPrompt(req))
		return c, "the comment's concern is " + c
	case strings.Contains(system, "free-text answer"):
		return `{"choice": null, "reasoning": "an instruction, not one of the choices"}`, "the user's words match none of the choices"
	case strings.Contains(system, "code review comment"):
		s := "Agree (no change): bob accepts the pushback, so the thread can be resolved."
		return s, s
	default:
		return "Done.", "writes: Done."
	}
}

// demoConcern reads the concern off the comment the way a model would, from what it asks for.
func demoConcern(prompt string) string {
	switch {
	case strings.Contains(prompt, "test"):
		return string(rounds.CategoryTesting)
	case strings.Contains(prompt, "ctx.Done()"):
		return string(rounds.CategoryErrorHandling)
	case strings.Contains(prompt, "Ticker"):
		return string(rounds.CategoryPerformance)
	}
	return string(rounds.CategoryOther)
}

// samplingPrompt is the text of a sampling request's messages.
func samplingPrompt(req mcp.CreateMessageRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		b.WriteString(mcp.GetTextFromContent(m.Content)) // the client hands the content over as decoded JSON
	}
	return b.String()
}

func (d *demoSession) push(headline string) {
	d.apply(githubfake.Push{Commits: []githubfake.NewCommit{{Headline: headline}}},
		githubfake.ChecksQueued{Jobs: []string{"test", "lint"}}, githubfake.ChecksCompleted{Conclusion: "SUCCESS"})
}
