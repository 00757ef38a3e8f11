package statemachine

import (
	"fmt"
	"slices"

	"github.com/looplab/fsm"
)

// Transition is one row of the table: a named move from any of From to To, and what triggers it.
type Transition struct {
	Name string
	From []Node
	To   Node
	On   string
}

// flowNodes lists each flow's question and task nodes.
var flowNodes = map[Flow][2]Node{
	FlowRefine:   {NodeRefineAsk, NodeRefineTask},
	FlowComments: {NodeCommentsAsk, NodeCommentsTask},
	FlowCI:       {NodeCIAsk, NodeCITask},
	FlowConflict: {NodeConflictAsk, NodeConflictTask},
	FlowReady:    {NodeReadyAsk, NodeReadyTask},
	FlowStale:    {NodeStaleAsk, NodeStaleTask},
}

// flowOrder is the order flows appear in the table (and the diagram).
var flowOrder = []Flow{FlowRefine, FlowComments, FlowCI, FlowConflict, FlowReady, FlowStale}

// Table is the single source of truth for how a monitor may move. Step fires these transitions
// through looplab/fsm, which rejects any move the table does not list; the diagram in
// docs/state-machine.md is drawn from it.
func Table() []Transition {
	all := make([]Node, 0, len(nodes))
	for n := range nodes {
		if n != NodeStopped {
			all = append(all, n)
		}
	}
	slices.Sort(all)
	asks := []Node{}
	t := []Transition{
		{Name: "start", From: []Node{NodeIdle}, To: NodePolling, On: "the agent's first ready"},
		{Name: "catch_up", From: []Node{NodePolling}, To: NodeAct, On: "a poll finds GitHub work the server owes (re-request a review, resolve a bot thread it answered)"},
		{Name: "catch_up_done", From: []Node{NodeAct}, To: NodePolling, On: "the catch-up action finished, whatever its outcome"},
		{Name: "merged", From: []Node{NodePolling, NodeReadyTask}, To: NodeStopped, On: "a poll sees the PR merged, or the user's merge succeeded"},
		{Name: "closed", From: []Node{NodePolling}, To: NodeStopped, On: "a poll sees the PR closed without merge"},
		{Name: "stop", From: all, To: NodeStopped, On: "pr_monitor_stop, or the user chose stop in any question"},
		{Name: "refine_begin_work", From: []Node{NodePolling}, To: NodeRefineTask, On: "changes requested and not yet answered (needs_refine), outside the cooldown"},
		{Name: "refine_begin_ask", From: []Node{NodePolling}, To: NodeRefineAsk, On: "needs_refine still holds after a refine of the same round ended"},
		{Name: "comments_begin_work", From: []Node{NodePolling}, To: NodeCommentsTask, On: "one thread needs action or a reviewer replied (auto-explain), or a refine's threads need replies"},
		{Name: "comments_begin_ask", From: []Node{NodePolling}, To: NodeCommentsAsk, On: "several threads need action"},
		{Name: "ci_begin_work", From: []Node{NodePolling}, To: NodeCITask, On: "CI failed on the current head: fetch log tails, then investigate"},
		{Name: "ci_begin_ask", From: []Node{NodePolling}, To: NodeCIAsk, On: "checks were cancelled on the current head"},
		{Name: "ci_defer", From: []Node{NodeCIAsk}, To: NodeCIWait, On: "the user chose a re-run; it waits until no check is in flight"},
		{Name: "ci_rerun", From: []Node{NodeCIWait}, To: NodeCITask, On: "in-flight checks finished and failures remain: re-run now"},
		{Name: "ci_wait", From: []Node{NodeCIWait}, To: NodeCIWait, On: "checks still in flight"},
		{Name: "ci_cancel_rerun", From: []Node{NodeCIWait}, To: NodePolling, On: "the head moved or the failures cleared while the re-run waited"},
		{Name: "conflict_begin_ask", From: []Node{NodePolling}, To: NodeConflictAsk, On: "the branch conflicts with its base"},
		{Name: "ready_begin_ask", From: []Node{NodePolling}, To: NodeReadyAsk, On: "approved, green, nothing open"},
		{Name: "stale_begin_ask", From: []Node{NodePolling}, To: NodeStaleAsk, On: "green, but every approval is on an older commit"},
	}
	for _, f := range flowOrder {
		ask, task := flowNodes[f][0], flowNodes[f][1]
		asks = append(asks, ask)
		done := []Node{ask, task}
		if f == FlowCI {
			done = append(done, NodeCIWait)
		}
		t = append(t,
			Transition{Name: string(f) + "_work", From: []Node{ask, task}, To: task, On: "an answer or a finished step hands out the flow's next task or server action"},
			Transition{Name: string(f) + "_ask", From: []Node{task, ask}, To: ask, On: "the flow needs the user: next question, recovery, a failed action, a freeform answer handled"},
			Transition{Name: string(f) + "_done", From: done, To: NodePolling, On: "the flow's work is finished"},
		)
	}
	t = append(t, Transition{Name: "acknowledge", From: asks, To: NodePolling, On: "the user chose resume or to handle it: the attention is acknowledged until its key changes"})
	return t
}

// newFSM builds the looplab machine from the table, starting at node.
func newFSM(at Node) *fsm.FSM {
	var events fsm.Events
	for _, tr := range Table() {
		src := make([]string, len(tr.From))
		for i, n := range tr.From {
			src[i] = string(n)
		}
		events = append(events, fsm.EventDesc{Name: tr.Name, Src: src, Dst: string(tr.To)})
	}
	return fsm.NewFSM(string(at), events, fsm.Callbacks{})
}

// Mermaid renders the table as a Mermaid state diagram.
func Mermaid() (string, error) {
	out, err := fsm.VisualizeWithType(newFSM(NodeIdle), fsm.MermaidStateDiagram)
	if err != nil {
		return "", fmt.Errorf("statemachine: draw diagram: %w", err)
	}
	return out, nil
}
