package main

import (
	"regexp"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// nodeWords says where a monitor is in the user's words: one entry per node of the state
// machine's table (a test holds it to the table).
var nodeWords = map[statemachine.Node]string{
	statemachine.NodeIdle:                    "starting",
	statemachine.NodePolling:                 "watching",
	statemachine.NodeStopped:                 "ended",
	statemachine.NodeCatchUpRequestingReview: "re-requesting review",
	statemachine.NodeCatchUpResolving:        "resolving a settled thread",

	statemachine.NodeRefineWorking:      "changes requested: agent at work",
	statemachine.NodeRefineStalled:      "changes requested: asking, no new commit",
	statemachine.NodeRefineRecovering:   "changes requested: re-reading the branch",
	statemachine.NodeRefineRecovery:     "changes requested: asking how to go on",
	statemachine.NodeRefineInterpreting: "changes requested: agent reading your answer",

	statemachine.NodeCommentsSingle:           "comments: asking about one thread",
	statemachine.NodeCommentsMulti:            "comments: asking how to proceed",
	statemachine.NodeCommentsAddressAll:       "comments: asking about the next thread",
	statemachine.NodeCommentsExplainAll:       "comments: asking about an explained thread",
	statemachine.NodeCommentsPick:             "comments: asking which thread",
	statemachine.NodeCommentsPickRemaining:    "comments: asking about the rest",
	statemachine.NodeCommentsHandlingMyself:   "comments: you handle them",
	statemachine.NodeCommentsExplaining:       "comments: agent explaining",
	statemachine.NodeCommentsAddressing:       "comments: agent addressing",
	statemachine.NodeCommentsFollowingUp:      "comments: agent following up",
	statemachine.NodeCommentsApplying:         "comments: agent applying a fix",
	statemachine.NodeCommentsComposing:        "comments: agent writing a reply",
	statemachine.NodeCommentsPostingReply:     "comments: posting a reply",
	statemachine.NodeCommentsResolving:        "comments: resolving a thread",
	statemachine.NodeCommentsRequestingReview: "comments: re-requesting review",
	statemachine.NodeCommentsRecovering:       "comments: re-reading the branch",
	statemachine.NodeCommentsRecovery:         "comments: asking how to go on",
	statemachine.NodeCommentsInterpreting:     "comments: agent reading your answer",
	statemachine.NodeCommentsActionFailed:     "comments: asking after a failure",
	statemachine.NodeCommentsNextThread:       "comments: choosing the next thread",
	statemachine.NodeCommentsFinishing:        "comments: finishing",

	statemachine.NodeCIFetchingLogs:  "CI failed: fetching logs",
	statemachine.NodeCIInvestigating: "CI failed: agent investigating",
	statemachine.NodeCIResults:       "CI failed: asking what to do",
	statemachine.NodeCICancelled:     "CI cancelled: asking what to do",
	statemachine.NodeCIApplyingFix:   "CI failed: agent applying a fix",
	statemachine.NodeCIRerunDeferred: "CI: re-run waits for checks",
	statemachine.NodeCIRerunning:     "CI: re-running",
	statemachine.NodeCIRecovering:    "CI: re-reading the branch",
	statemachine.NodeCIRecovery:      "CI: asking how to go on",
	statemachine.NodeCIInterpreting:  "CI: agent reading your answer",
	statemachine.NodeCIActionFailed:  "CI: asking after a failure",

	statemachine.NodeConflictAsk:          "conflict: asking to rebase",
	statemachine.NodeConflictRebasing:     "conflict: agent rebasing",
	statemachine.NodeConflictRecovering:   "conflict: re-reading the branch",
	statemachine.NodeConflictRecovery:     "conflict: asking how to go on",
	statemachine.NodeConflictInterpreting: "conflict: agent reading your answer",

	statemachine.NodeReadyAsk:            "ready: asking to merge",
	statemachine.NodeReadyMerging:        "ready: merging",
	statemachine.NodeReadyUpdatingBranch: "ready: updating the branch",
	statemachine.NodeReadyMergeRefused:   "ready: asking, merge refused",
	statemachine.NodeReadyRecovering:     "ready: re-reading the branch",
	statemachine.NodeReadyRecovery:       "ready: asking how to go on",
	statemachine.NodeReadyInterpreting:   "ready: agent reading your answer",
	statemachine.NodeReadyActionFailed:   "ready: asking after a failure",

	statemachine.NodeStaleAsk:              "stale approval: asking",
	statemachine.NodeStaleRequestingReview: "stale approval: re-requesting review",
	statemachine.NodeStaleRecovering:       "stale approval: re-reading the branch",
	statemachine.NodeStaleRecovery:         "stale approval: asking how to go on",
	statemachine.NodeStaleInterpreting:     "stale approval: agent reading your answer",
	statemachine.NodeStaleActionFailed:     "stale approval: asking after a failure",
}

// describeNode is a node in words; a node this build does not know (a newer server's) is named
// plainly rather than hidden.
func describeNode(n statemachine.Node) string {
	if w, ok := nodeWords[n]; ok {
		return w
	}
	return "at " + strings.ReplaceAll(string(n), "_", " ")
}

// taskWords says what the agent is doing.
var taskWords = map[statemachine.TaskName]string{
	statemachine.TaskRefine:               "answer the requested changes",
	statemachine.TaskAddressComment:       "address a review comment",
	statemachine.TaskApplyRecommendation:  "apply the recommended fix",
	statemachine.TaskExplainComment:       "explain a review comment",
	statemachine.TaskComposeReply:         "write a reply",
	statemachine.TaskInvestigateCIFailure: "investigate the failing checks",
	statemachine.TaskApplyFix:             "fix the failing checks",
	statemachine.TaskRebase:               "rebase the branch",
	statemachine.TaskInterpretFreeform:    "interpret your free-text answer",
}

func describeTask(t statemachine.TaskName) string {
	if w, ok := taskWords[t]; ok {
		return w
	}
	return strings.ReplaceAll(string(t), "_", " ")
}

// serverWords says what the server is doing on GitHub. The merge is not named here (only the
// ready flow and the merge executor may name it, tests/safety_static_test.go): its kind, "merge",
// is already a word.
var serverWords = map[statemachine.ServerActionKind]string{
	statemachine.ServerPostReply:     "post a reply",
	statemachine.ServerResolveThread: "resolve a thread",
	statemachine.ServerRequestReview: "re-request review",
	statemachine.ServerRerunFailed:   "re-run the failed jobs",
	statemachine.ServerRerunAll:      "re-run the workflows",
	statemachine.ServerFetchHead:     "re-read the branch head",
	statemachine.ServerFetchCILogs:   "fetch the failed jobs' logs",
}

func describeServer(k statemachine.ServerActionKind) string {
	if w, ok := serverWords[k]; ok {
		return w
	}
	return strings.ReplaceAll(string(k), "_", " ")
}

// eventWords says what the agent reported.
var eventWords = map[statemachine.Event]string{
	statemachine.EventReady:                 "agent ready",
	statemachine.EventUserChose:             "you chose",
	statemachine.EventCommentAddressed:      "agent addressed a comment",
	statemachine.EventCommentReplied:        "agent replied to a comment",
	statemachine.EventInvestigationComplete: "agent finished investigating",
	statemachine.EventPushCompleted:         "agent pushed",
	statemachine.EventTaskComplete:          "agent finished its task",
}

// inputWords says what else moved the machine.
var inputWords = map[statemachine.InputKind]string{
	statemachine.InputDecline:  "you declined the question",
	statemachine.InputCancel:   "you dismissed the question",
	statemachine.InputFreeform: "you answered in your own words",
	statemachine.InputHead:     "re-read the branch head",
	statemachine.InputStop:     "stop asked",
}

// choiceLabel is a choice's label from the catalogue, or the value in words.
func choiceLabel(v string) string {
	for _, s := range elicitation.Catalogue() {
		for _, c := range s.Choices {
			if string(c.Value) == v && c.Label != "" {
				return strings.ToLower(c.Label[:1]) + c.Label[1:]
			}
		}
	}
	return strings.ReplaceAll(v, "_", " ")
}

// stepSummary matches the summary the server logs for one step of a monitor's machine (see
// describeStep in mcpserver): "<what> → <action> at <node>".
var stepSummary = regexp.MustCompile(`^(.+) → ([a-z_]+) at ([a-z_]+)$`)

// describeEvent is one event of a monitor's log in words. Steps of the machine, which the server
// logs with the machine's own names, are told in words; any other summary is the server's prose.
// Summaries can hold GitHub text (an error's message), so they pass through oneLine.
func describeEvent(summary string) string {
	m := stepSummary.FindStringSubmatch(summary)
	if m == nil {
		return oneLine(summary)
	}
	what, node := m[1], statemachine.Node(m[3])
	return describeInput(what) + " → " + describeNode(node)
}

// describeInput tells the first part of a step's summary.
func describeInput(what string) string {
	if kind, ok := pollAttention(what); ok {
		return "checked GitHub: " + kind.Words()
	}
	head, rest, _ := strings.Cut(what, " ")
	if w, ok := eventWords[statemachine.Event(head)]; ok {
		if head == string(statemachine.EventUserChose) && rest != "" {
			return w + " " + choiceLabel(rest)
		}
		return w
	}
	if w, ok := inputWords[statemachine.InputKind(head)]; ok {
		return w
	}
	kind, failure, failed := strings.Cut(what, " failed: ")
	if w, ok := serverWords[statemachine.ServerActionKind(kind)]; ok {
		if failed {
			return "on GitHub, could not " + w + ": " + oneLine(failure)
		}
		return "on GitHub: " + w + ", done"
	}
	return oneLine(what)
}

// pollAttention reads the attention out of a poll step's "poll: <kind>".
func pollAttention(what string) (prstatus.AttentionKind, bool) {
	k, ok := strings.CutPrefix(what, "poll: ")
	if !ok {
		return "", false
	}
	kind := prstatus.AttentionKind(k)
	return kind, kind.Known()
}
