package main

import (
	"cmp"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
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

// choiceLabel is a choice's label, from the question's catalogue entry (the question the answer
// was given to), else from any entry that offers the value, else the value in words.
func choiceLabel(question, v string) string {
	specs := elicitation.Catalogue()
	if i := slices.IndexFunc(specs, func(s elicitation.Spec) bool { return string(s.ID) == question }); i >= 0 {
		specs = append([]elicitation.Spec{specs[i]}, specs...)
	}
	for _, s := range specs {
		for _, c := range s.Choices {
			if string(c.Value) == v && c.Label != "" {
				return strings.ToLower(c.Label[:1]) + c.Label[1:]
			}
		}
	}
	return strings.ReplaceAll(v, "_", " ")
}

// describeEvent is one event of a monitor's log in words, from its typed fields (store.Event): a
// step of the machine tells its input and where it led; the server's GitHub work tells how it went;
// any other event is the server's own sentence. Text that can come from GitHub (an error's
// message) passes through oneLine.
func describeEvent(e store.Event) string {
	switch {
	case e.IsStep():
		return describeInput(e) + " → " + describeNode(statemachine.Node(e.Node))
	case e.Input == "" && e.Outcome != nil:
		return describeWork(*e.Outcome)
	}
	return sanitize.Line(e.Summary)
}

// describeInput tells what moved the machine in a step.
func describeInput(e store.Event) string {
	switch in := statemachine.InputKind(e.Input); {
	case in == statemachine.InputPoll:
		if k := prstatus.AttentionKind(e.Attention); k.Known() {
			return "checked GitHub: " + k.Words()
		}
		return "checked GitHub"
	case in == statemachine.InputEvent && e.AgentEvent == string(statemachine.EventUserChose):
		question := ""
		if e.Answered != nil {
			question = e.Answered.ID
		}
		return "you chose " + choiceLabel(question, e.Choice)
	case in == statemachine.InputEvent && statemachine.Event(e.AgentEvent).Valid():
		return "the agent said " + statemachine.Event(e.AgentEvent).Words()
	case (in == statemachine.InputOutcome || in == statemachine.InputHead) && e.Outcome != nil:
		return describeWork(*e.Outcome)
	}
	if w, ok := inputWords[statemachine.InputKind(e.Input)]; ok {
		return w
	}
	return sanitize.Line(cmp.Or(e.AgentEvent, e.Input))
}

// describeWork tells how a piece of the server's GitHub work went.
func describeWork(o store.WorkOutcome) string {
	w := describeServer(statemachine.ServerActionKind(o.Work))
	if !o.OK {
		return "on GitHub, could not " + w + ": " + sanitize.Line(o.Error)
	}
	return "on GitHub: " + w + ", done"
}
