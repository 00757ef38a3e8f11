package statemachine

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// forbidden are things no instruction may ask of the agent: the server alone posts, resolves,
// requests reviews and merges (on the user's choice), and nothing closes a PR or deletes a branch.
var forbidden = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bmerg(e|ing)\b`),
	regexp.MustCompile(`(?i)\bclos(e|ing)\b`),
	regexp.MustCompile(`(?i)\bdelet(e|ing)\b`),
	regexp.MustCompile(`(?i)\bgh (pr|api)\b`),
	regexp.MustCompile(`(?i)\bresolve the thread\b`),
	regexp.MustCompile(`(?i)\brequest (a )?review`),
}

// postsAllowed: "post" may appear only as something the server does.
var postByServer = regexp.MustCompile(`(?i)the server posts`)

// TestNoInstructionTellsTheAgentToMergeClosePostOrDelete walks every task in every flow.
func TestNoInstructionTellsTheAgentToMergeClosePostOrDelete(t *testing.T) {
	tasks := []TaskName{TaskRefine, TaskAddressComment, TaskApplyRecommendation, TaskExplainComment, TaskComposeReply,
		TaskInvestigateCIFailure, TaskApplyFix, TaskRebase, TaskInterpretFreeform}
	for _, task := range tasks {
		for _, flow := range []Flow{FlowNone, FlowRefine, FlowComments, FlowCI, FlowConflict, FlowReady, FlowStale} {
			text := instructions(task, flow, freeformEvents(flow))
			for _, re := range forbidden {
				assert.NotRegexp(t, re, text, "%s in %s", task, flow)
			}
			rest := postByServer.ReplaceAllString(text, "")
			assert.NotRegexp(t, `(?i)\bpost`, rest, "%s in %s: only the server posts", task, flow)
			assert.True(t, strings.Contains(text, "pr_monitor_next_step"), "%s says how to report back", task)
		}
	}
}

// TestTheScanCanFail proves the patterns catch what they are meant to.
func TestTheScanCanFail(t *testing.T) {
	for _, bad := range []string{"Then merge the PR.", "close the pull request", "gh pr comment 7", "delete the branch"} {
		hit := false
		for _, re := range forbidden {
			hit = hit || re.MatchString(bad)
		}
		assert.True(t, hit, bad)
	}
}

// TestEachTaskSaysWhichEventsEndItAndWithWhatData: an instruction ends with the events that report
// the task done, each with the data it carries for that task.
func TestEachTaskSaysWhichEventsEndItAndWithWhatData(t *testing.T) {
	for _, tt := range []struct {
		name     string
		task     TaskName
		expected []Event
		want     string
	}{
		{"addressing a comment", TaskAddressComment, []Event{EventCommentAddressed, EventCommentReplied},
			"event comment_addressed (data.reply_text) or comment_replied (data.reply_text)."},
		{"explaining a comment", TaskExplainComment, []Event{EventTaskComplete},
			"event task_complete (data.recommendation)."},
		{"interpreting free text", TaskInterpretFreeform, []Event{EventUserChose, EventPushCompleted, EventTaskComplete},
			"event user_chose (choice) or push_completed or task_complete when done (data.recommendation if your analysis changed)."},
		{"investigating CI", TaskInvestigateCIFailure, []Event{EventInvestigationComplete},
			"event investigation_complete (data.findings, data.suggested_fix, data.issue_type)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, instructions(tt.task, FlowNone, tt.expected), "Then call pr_monitor_next_step with "+tt.want)
		})
	}
}
