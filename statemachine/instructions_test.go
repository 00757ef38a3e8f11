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
