package statemachine

// State is the monitor's top-level state.
type State string

// The five top-level states.
const (
	StateIdle          State = "idle"
	StatePolling       State = "polling"
	StateAwaitingUser  State = "awaiting_user"
	StateExecutingTask State = "executing_task"
	StateStopped       State = "stopped"
)

// Flow is the piece of work a monitor is in the middle of.
type Flow string

// Flows. FlowNone means the monitor is only watching.
const (
	FlowNone     Flow = "none"
	FlowRefine   Flow = "refine"
	FlowComments Flow = "comments"
	FlowCI       Flow = "ci"
	FlowConflict Flow = "conflict"
	FlowReady    Flow = "ready"
	FlowStale    Flow = "stale"
)

// Event is what the agent reports to pr_monitor_next_step.
type Event string

// The agent events.
const (
	EventReady                 Event = "ready"
	EventUserChose             Event = "user_chose"
	EventCommentAddressed      Event = "comment_addressed"
	EventCommentReplied        Event = "comment_replied"
	EventInvestigationComplete Event = "investigation_complete"
	EventPushCompleted         Event = "push_completed"
	EventTaskComplete          Event = "task_complete"
)

// Events lists every agent event.
var Events = []Event{EventReady, EventUserChose, EventCommentAddressed, EventCommentReplied,
	EventInvestigationComplete, EventPushCompleted, EventTaskComplete}

// Valid reports whether e is a known event.
func (e Event) Valid() bool {
	for _, k := range Events {
		if e == k {
			return true
		}
	}
	return false
}

// TaskName names work handed to the agent.
type TaskName string

// The agent tasks.
const (
	TaskRefine               TaskName = "refine"
	TaskAddressComment       TaskName = "address_comment"
	TaskApplyRecommendation  TaskName = "apply_recommendation"
	TaskExplainComment       TaskName = "explain_comment"
	TaskComposeReply         TaskName = "compose_reply"
	TaskInvestigateCIFailure TaskName = "investigate_ci_failure"
	TaskApplyFix             TaskName = "apply_fix"
	TaskRebase               TaskName = "rebase"
	TaskInterpretFreeform    TaskName = "interpret_freeform"
)

// pushCapable tasks may push commits: entering one snapshots the head.
func (t TaskName) pushCapable() bool {
	switch t {
	case TaskRefine, TaskAddressComment, TaskApplyRecommendation, TaskApplyFix, TaskRebase, TaskInterpretFreeform:
		return true
	}
	return false
}

// ActionKind is what the caller of Step must do next.
type ActionKind string

// Action kinds. ActionServer never reaches the agent: the MCP server performs it and feeds the
// outcome back.
const (
	ActionExecute ActionKind = "execute"
	ActionAskUser ActionKind = "ask_user"
	ActionPolling ActionKind = "polling"
	ActionStop    ActionKind = "stop"
	ActionMerged  ActionKind = "merged"
	ActionServer  ActionKind = "server"
)

// ServerActionKind names GitHub work the server does itself.
type ServerActionKind string

// Server-side actions.
const (
	ServerPostReply     ServerActionKind = "post_reply"
	ServerResolveThread ServerActionKind = "resolve_thread"
	ServerRequestReview ServerActionKind = "request_review"
	ServerRerunFailed   ServerActionKind = "rerun_failed_jobs"
	ServerRerunAll      ServerActionKind = "rerun_workflows"
	ServerMerge         ServerActionKind = "merge"
	ServerUpdateBranch  ServerActionKind = "update_branch"
	// ServerEnableAutoMerge has GitHub merge the pull request by itself once its requirements are
	// met; ServerEnqueue adds it to its base branch's merge queue. Both merge, like ServerMerge:
	// only from the user's choice in the ready flow, pinned to what they saw.
	ServerEnableAutoMerge ServerActionKind = "enable_auto_merge"
	ServerEnqueue         ServerActionKind = "enqueue"
	// ServerDisableAutoMerge turns auto-merge off again (it never merges).
	ServerDisableAutoMerge ServerActionKind = "disable_auto_merge"
	ServerFetchHead        ServerActionKind = "fetch_head"
	ServerFetchCILogs      ServerActionKind = "fetch_ci_logs"
)
