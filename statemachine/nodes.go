package statemachine

import (
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
)

// Node is where a monitor is: one step of one flow (which question is open, which task or server
// action is in progress), or watching. It is a row end in the transition table; the flow's context
// (which thread, which checks) lives beside it in the Position.
type Node string

// Every node of the table. Each question, task and server action a flow can be waiting on has its
// own node; a node's name says the step in the user's words.
const (
	NodeIdle    Node = "idle"
	NodePolling Node = "polling"
	NodeStopped Node = "stopped"
	// Catch-up: GitHub work the server owes between polls, whatever the flow.
	NodeCatchUpRequestingReview Node = "catch_up_requesting_review"
	NodeCatchUpResolving        Node = "catch_up_resolving"

	NodeRefineWorking      Node = "refine_working"
	NodeRefineStalled      Node = "refine_stalled"
	NodeRefineRecovering   Node = "refine_recovering"
	NodeRefineRecovery     Node = "refine_recovery"
	NodeRefineInterpreting Node = "refine_interpreting"

	NodeCommentsSingle           Node = "comments_single"
	NodeCommentsMulti            Node = "comments_multi"
	NodeCommentsAddressAll       Node = "comments_address_all"
	NodeCommentsExplainAll       Node = "comments_explain_all"
	NodeCommentsPick             Node = "comments_pick"
	NodeCommentsPickRemaining    Node = "comments_pick_remaining"
	NodeCommentsHandlingMyself   Node = "comments_handling_myself"
	NodeCommentsExplaining       Node = "comments_explaining"
	NodeCommentsAddressing       Node = "comments_addressing"
	NodeCommentsFollowingUp      Node = "comments_following_up"
	NodeCommentsApplying         Node = "comments_applying"
	NodeCommentsComposing        Node = "comments_composing"
	NodeCommentsPostingReply     Node = "comments_posting_reply"
	NodeCommentsResolving        Node = "comments_resolving"
	NodeCommentsRequestingReview Node = "comments_requesting_review"
	NodeCommentsRecovering       Node = "comments_recovering"
	NodeCommentsRecovery         Node = "comments_recovery"
	NodeCommentsInterpreting     Node = "comments_interpreting"
	NodeCommentsActionFailed     Node = "comments_action_failed"
	// Decided within one step, never rested in: which thread comes next, and how the flow ends.
	NodeCommentsNextThread Node = "comments_next_thread"
	NodeCommentsFinishing  Node = "comments_finishing"

	NodeCIFetchingLogs  Node = "ci_fetching_logs"
	NodeCIInvestigating Node = "ci_investigating"
	NodeCIResults       Node = "ci_results"
	NodeCICancelled     Node = "ci_cancelled"
	NodeCIApplyingFix   Node = "ci_applying_fix"
	NodeCIRerunDeferred Node = "ci_rerun_deferred" // a re-run waits until no check is in flight
	NodeCIRerunning     Node = "ci_rerunning"
	NodeCIRecovering    Node = "ci_recovering"
	NodeCIRecovery      Node = "ci_recovery"
	NodeCIInterpreting  Node = "ci_interpreting"
	NodeCIActionFailed  Node = "ci_action_failed"
	NodeCIBaseFailing   Node = "ci_base_failing"   // the failing checks fail on the base branch's tip too
	NodeReadyAskStacked Node = "ready_ask_stacked" // the merge question of a pull request stacked on another

	NodeConflictAsk          Node = "conflict_ask"
	NodeConflictRebasing     Node = "conflict_rebasing"
	NodeConflictRecovering   Node = "conflict_recovering"
	NodeConflictRecovery     Node = "conflict_recovery"
	NodeConflictInterpreting Node = "conflict_interpreting"

	NodeReadyAsk          Node = "ready_ask"
	NodeReadyMerging      Node = "ready_merging"
	NodeReadyMergeRefused Node = "ready_merge_refused"
	NodeReadyRecovering   Node = "ready_recovering"
	NodeReadyRecovery     Node = "ready_recovery"
	NodeReadyInterpreting Node = "ready_interpreting"
	NodeReadyActionFailed Node = "ready_action_failed"
	// The branch is behind a base that must be merged in first: GitHub's "Update branch".
	NodeReadyUpdatingBranch Node = "ready_updating_branch"
	// Auto-merge: offered while checks still run, turned on, turned off again on news.
	NodeReadyAskWhenReady       Node = "ready_ask_when_ready"
	NodeReadyEnablingAutoMerge  Node = "ready_enabling_auto_merge"
	NodeReadyDisablingAutoMerge Node = "ready_disabling_auto_merge"
	NodeReadyAutoMergeOff       Node = "ready_auto_merge_off"

	NodeStaleAsk              Node = "stale_ask"
	NodeStaleRequestingReview Node = "stale_requesting_review"
	NodeStaleRecovering       Node = "stale_recovering"
	NodeStaleRecovery         Node = "stale_recovery"
	NodeStaleInterpreting     Node = "stale_interpreting"
	NodeStaleActionFailed     Node = "stale_action_failed"
)

// nodeInfo is what a node means: its top-level state and flow, and what the position holds there
// (the open question, the task or the server action). check() holds every position to it.
type nodeInfo struct {
	state    State
	flow     Flow
	question elicitation.QuestionID
	task     TaskName
	server   []ServerActionKind
	// followUp: the address task of a refine's follow-up (CommentsState.Mode is follow_up).
	followUp bool
	// transient: a decision taken within a step; a position never rests there.
	transient bool
}

func asking(f Flow, q elicitation.QuestionID) nodeInfo {
	return nodeInfo{state: StateAwaitingUser, flow: f, question: q}
}
func working(f Flow, t TaskName) nodeInfo {
	return nodeInfo{state: StateExecutingTask, flow: f, task: t}
}
func serving(f Flow, k ...ServerActionKind) nodeInfo {
	return nodeInfo{state: StateExecutingTask, flow: f, server: k}
}

// nodeOrder lists every node: watching first, then each flow's steps in the order a reader meets
// them. The diagram, the docs and the tests walk it.
var nodeOrder = []Node{
	NodeIdle, NodePolling, NodeCatchUpRequestingReview, NodeCatchUpResolving, NodeStopped,
	NodeRefineWorking, NodeRefineStalled, NodeRefineRecovering, NodeRefineRecovery, NodeRefineInterpreting,
	NodeCommentsMulti, NodeCommentsExplaining, NodeCommentsSingle, NodeCommentsAddressAll, NodeCommentsExplainAll,
	NodeCommentsPick, NodeCommentsPickRemaining, NodeCommentsHandlingMyself, NodeCommentsAddressing,
	NodeCommentsFollowingUp, NodeCommentsApplying, NodeCommentsComposing, NodeCommentsPostingReply,
	NodeCommentsResolving, NodeCommentsNextThread, NodeCommentsFinishing, NodeCommentsRequestingReview,
	NodeCommentsRecovering, NodeCommentsRecovery, NodeCommentsInterpreting, NodeCommentsActionFailed,
	NodeCIFetchingLogs, NodeCIInvestigating, NodeCIResults, NodeCICancelled, NodeCIApplyingFix,
	NodeCIRerunDeferred, NodeCIRerunning, NodeCIRecovering, NodeCIRecovery, NodeCIInterpreting, NodeCIActionFailed,
	NodeCIBaseFailing, NodeReadyAskStacked,
	NodeConflictAsk, NodeConflictRebasing, NodeConflictRecovering, NodeConflictRecovery, NodeConflictInterpreting,
	NodeReadyAsk, NodeReadyMerging, NodeReadyMergeRefused, NodeReadyRecovering, NodeReadyRecovery,
	NodeReadyInterpreting, NodeReadyActionFailed, NodeReadyUpdatingBranch,
	NodeReadyAskWhenReady, NodeReadyEnablingAutoMerge, NodeReadyDisablingAutoMerge, NodeReadyAutoMergeOff,
	NodeStaleAsk, NodeStaleRequestingReview, NodeStaleRecovering, NodeStaleRecovery, NodeStaleInterpreting,
	NodeStaleActionFailed,
}

var nodes = map[Node]nodeInfo{
	NodeIdle:                    {state: StateIdle, flow: FlowNone},
	NodePolling:                 {state: StatePolling, flow: FlowNone},
	NodeStopped:                 {state: StateStopped, flow: FlowNone},
	NodeCatchUpRequestingReview: serving(FlowNone, ServerRequestReview),
	NodeCatchUpResolving:        serving(FlowNone, ServerResolveThread),

	NodeRefineWorking:      working(FlowRefine, TaskRefine),
	NodeRefineStalled:      asking(FlowRefine, elicitation.QRefineStalled),
	NodeRefineRecovering:   serving(FlowRefine, ServerFetchHead),
	NodeRefineRecovery:     asking(FlowRefine, elicitation.QRecovery),
	NodeRefineInterpreting: working(FlowRefine, TaskInterpretFreeform),

	NodeCommentsSingle:           asking(FlowComments, elicitation.QCommentSingle),
	NodeCommentsMulti:            asking(FlowComments, elicitation.QCommentsMulti),
	NodeCommentsAddressAll:       asking(FlowComments, elicitation.QCommentItem),
	NodeCommentsExplainAll:       asking(FlowComments, elicitation.QCommentExplained),
	NodeCommentsPick:             asking(FlowComments, elicitation.QCommentPick),
	NodeCommentsPickRemaining:    asking(FlowComments, elicitation.QCommentsRemaining),
	NodeCommentsHandlingMyself:   asking(FlowComments, elicitation.QCommentsManual),
	NodeCommentsExplaining:       working(FlowComments, TaskExplainComment),
	NodeCommentsAddressing:       working(FlowComments, TaskAddressComment),
	NodeCommentsFollowingUp:      {state: StateExecutingTask, flow: FlowComments, task: TaskAddressComment, followUp: true},
	NodeCommentsApplying:         working(FlowComments, TaskApplyRecommendation),
	NodeCommentsComposing:        working(FlowComments, TaskComposeReply),
	NodeCommentsPostingReply:     serving(FlowComments, ServerPostReply),
	NodeCommentsResolving:        serving(FlowComments, ServerResolveThread),
	NodeCommentsRequestingReview: serving(FlowComments, ServerRequestReview),
	NodeCommentsRecovering:       serving(FlowComments, ServerFetchHead),
	NodeCommentsRecovery:         asking(FlowComments, elicitation.QRecovery),
	NodeCommentsInterpreting:     working(FlowComments, TaskInterpretFreeform),
	NodeCommentsActionFailed:     asking(FlowComments, elicitation.QActionFailed),
	NodeCommentsNextThread:       {state: StateExecutingTask, flow: FlowComments, transient: true},
	NodeCommentsFinishing:        {state: StateExecutingTask, flow: FlowComments, transient: true},

	NodeCIFetchingLogs:  serving(FlowCI, ServerFetchCILogs),
	NodeCIInvestigating: working(FlowCI, TaskInvestigateCIFailure),
	NodeCIResults:       asking(FlowCI, elicitation.QCIResults),
	NodeCICancelled:     asking(FlowCI, elicitation.QCICancelled),
	NodeCIApplyingFix:   working(FlowCI, TaskApplyFix),
	NodeCIRerunDeferred: {state: StatePolling, flow: FlowCI},
	NodeCIRerunning:     serving(FlowCI, ServerRerunFailed, ServerRerunAll),
	NodeCIRecovering:    serving(FlowCI, ServerFetchHead),
	NodeCIRecovery:      asking(FlowCI, elicitation.QRecovery),
	NodeCIInterpreting:  working(FlowCI, TaskInterpretFreeform),
	NodeCIActionFailed:  asking(FlowCI, elicitation.QActionFailed),
	NodeCIBaseFailing:   asking(FlowCI, elicitation.QCIBaseFailing),
	NodeReadyAskStacked: asking(FlowReady, elicitation.QReadyStacked),

	NodeConflictAsk:          asking(FlowConflict, elicitation.QMergeConflict),
	NodeConflictRebasing:     working(FlowConflict, TaskRebase),
	NodeConflictRecovering:   serving(FlowConflict, ServerFetchHead),
	NodeConflictRecovery:     asking(FlowConflict, elicitation.QRecovery),
	NodeConflictInterpreting: working(FlowConflict, TaskInterpretFreeform),

	NodeReadyAsk:          asking(FlowReady, elicitation.QReadyToMerge),
	NodeReadyMerging:      readyMerging,
	NodeReadyMergeRefused: asking(FlowReady, elicitation.QMergeRefused),
	NodeReadyRecovering:   serving(FlowReady, ServerFetchHead),
	NodeReadyRecovery:     asking(FlowReady, elicitation.QRecovery),
	NodeReadyInterpreting: working(FlowReady, TaskInterpretFreeform),
	NodeReadyActionFailed: asking(FlowReady, elicitation.QActionFailed),

	NodeReadyUpdatingBranch: serving(FlowReady, ServerUpdateBranch),

	NodeReadyAskWhenReady:       asking(FlowReady, elicitation.QMergeWhenReady),
	NodeReadyEnablingAutoMerge:  readyEnabling,
	NodeReadyDisablingAutoMerge: serving(FlowReady, ServerDisableAutoMerge),
	NodeReadyAutoMergeOff:       asking(FlowReady, elicitation.QAutoMergeOff),

	NodeStaleAsk:              asking(FlowStale, elicitation.QStaleApproval),
	NodeStaleRequestingReview: serving(FlowStale, ServerRequestReview),
	NodeStaleRecovering:       serving(FlowStale, ServerFetchHead),
	NodeStaleRecovery:         asking(FlowStale, elicitation.QRecovery),
	NodeStaleInterpreting:     working(FlowStale, TaskInterpretFreeform),
	NodeStaleActionFailed:     asking(FlowStale, elicitation.QActionFailed),
}

// State is the top-level state of the node.
func (n Node) State() State { return nodes[n].state }

// Flow is the flow the node belongs to.
func (n Node) Flow() Flow { return nodes[n].flow }

// Task is the agent's task a node waits on, "" when it waits on none (a question, GitHub work,
// watching).
func (n Node) Task() TaskName { return nodes[n].task }

// Valid reports whether n is a node of the table.
func (n Node) Valid() bool { _, ok := nodes[n]; return ok }

// transient reports whether n is a decision taken within a step.
func (n Node) transient() bool { return nodes[n].transient }

// find returns the node of flow f that matches, or "".
func find(f Flow, match func(nodeInfo) bool) Node {
	for _, n := range nodeOrder {
		if info := nodes[n]; info.flow == f && match(info) {
			return n
		}
	}
	return ""
}

// questionNode is where flow f asks question q.
func questionNode(f Flow, q elicitation.QuestionID) Node {
	return find(f, func(i nodeInfo) bool { return i.state == StateAwaitingUser && i.question == q })
}

// taskNode is where flow f hands out task t; followUp picks the refine follow-up's address task.
func taskNode(f Flow, t TaskName, followUp bool) Node {
	return find(f, func(i nodeInfo) bool { return i.task == t && i.followUp == (followUp && t == TaskAddressComment) })
}

// serverNode is where flow f waits on server action k.
func serverNode(f Flow, k ServerActionKind) Node {
	return find(f, func(i nodeInfo) bool { return slices.Contains(i.server, k) })
}

// restingNodes are the nodes a position can be at (every node but the transient ones).
func restingNodes() []Node {
	var out []Node
	for _, n := range nodeOrder {
		if !n.transient() {
			out = append(out, n)
		}
	}
	return out
}
