package main

import (
	"regexp"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The words status shows come from the packages that own them: an attention's from prstatus
// (AttentionKind.Words), a task's and an agent's event from statemachine (TaskName.Words,
// Event.Words), a choice's label from the elicitation catalogue. What only status says (where a
// node stands, what the server is doing on GitHub) is composed here from those.

// flowAttention is the attention each flow answers: its words name the flow.
var flowAttention = map[statemachine.Flow]prstatus.AttentionKind{
	statemachine.FlowRefine:   prstatus.AttentionChangesRequested,
	statemachine.FlowComments: prstatus.AttentionNewComments,
	statemachine.FlowCI:       prstatus.AttentionCIFailed,
	statemachine.FlowConflict: prstatus.AttentionMergeConflict,
	statemachine.FlowReady:    prstatus.AttentionReadyToMerge,
	statemachine.FlowStale:    prstatus.AttentionStaleApproval,
}

// describeNode says where a monitor is: the flow, in its attention's words, and whose turn it is
// there. A node this build does not know (a newer server's) is named plainly rather than hidden.
func describeNode(n statemachine.Node) string {
	if !n.Valid() {
		return "at " + strings.ReplaceAll(string(n), "_", " ")
	}
	switch n {
	case statemachine.NodeIdle:
		return "starting"
	case statemachine.NodePolling:
		return "watching"
	case statemachine.NodeStopped:
		return "ended"
	}
	flow := "catching up"
	if k, ok := flowAttention[n.Flow()]; ok {
		if n == statemachine.NodeCICancelled {
			k = prstatus.AttentionCICancelled
		}
		flow = k.Words()
	}
	switch {
	case n.State() == statemachine.StateAwaitingUser:
		return flow + ": asking you"
	case n.Task() != "":
		return flow + ": agent at work"
	case n.State() == statemachine.StatePolling:
		return flow + ": waiting for running checks"
	}
	return flow + ": GitHub work"
}

// serverWords says what the server does on GitHub. The merge is not named here (only the ready
// flow and the merge executor may name it, tests/safety_static_test.go): its kind, "merge", is
// already a word.
var serverWords = map[statemachine.ServerActionKind]string{
	statemachine.ServerPostReply:     "post a reply",
	statemachine.ServerResolveThread: "resolve a thread",
	statemachine.ServerRequestReview: "re-request review",
	statemachine.ServerRerunFailed:   "re-run the failed jobs",
	statemachine.ServerRerunAll:      "re-run the workflows",
	statemachine.ServerFetchHead:     "re-read the branch head",
	statemachine.ServerFetchCILogs:   "fetch the failed jobs' logs",
	statemachine.ServerUpdateBranch:  "update the branch from its base",
}

func describeServer(k statemachine.ServerActionKind) string {
	if w, ok := serverWords[k]; ok {
		return w
	}
	return strings.ReplaceAll(string(k), "_", " ")
}

// inputWords says what else moved the machine: the user's answers that are not a choice, and the
// server's own inputs.
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
	switch ev := statemachine.Event(head); {
	case ev == statemachine.EventUserChose && rest != "":
		return "you chose " + choiceLabel(rest)
	case ev.Words() != statemachine.Event("").Words():
		return "the agent said " + ev.Words()
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
