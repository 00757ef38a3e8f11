package mcpserver

import (
	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// StartInput is pr_monitor_start's input.
type StartInput struct {
	PR string `json:"pr" jsonschema:"The pull request: OWNER/REPO#N or its URL (https://github.com/OWNER/REPO/pull/N)."`
}

// StartOutput is pr_monitor_start's result.
type StartOutput struct {
	MonitorID string `json:"monitor_id" jsonschema:"Pass this to pr_monitor_next_step, pr_monitor_status and pr_monitor_stop."`
	Resumed   bool   `json:"resumed" jsonschema:"True when an earlier monitor of this PR was resumed where it left off."`
	PR        string `json:"pr"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	Summary   string `json:"summary" jsonschema:"One line: attention, CI, reviews, threads."`
	// Pending is what the resumed monitor was waiting on (a question or a task), if anything.
	Pending *ActionOutput `json:"pending,omitempty"`
	Next    string        `json:"next" jsonschema:"The call to make next."`
}

// NextStepInput is pr_monitor_next_step's input.
type NextStepInput struct {
	MonitorID string `json:"monitor_id" jsonschema:"From pr_monitor_start."`
	Event     string `json:"event" jsonschema:"What happened: ready to (re)start or continue; user_chose to answer an ask_user action; otherwise the event the last execute action expects.,enum=ready,enum=user_chose,enum=comment_addressed,enum=comment_replied,enum=investigation_complete,enum=push_completed,enum=task_complete"`
	Choice    string `json:"choice,omitempty" jsonschema:"user_chose: the value of the chosen choice (not its label)."`
	// QuestionSeq makes an answer exact: a repeat of an answer already taken gets what it led to,
	// an answer to a question no longer open is refused rather than applied to another.
	QuestionSeq int                     `json:"question_seq,omitempty" jsonschema:"user_chose: the question's seq from the ask_user action. Repeating an answer already taken returns what it led to."`
	Data        *statemachine.EventData `json:"data,omitempty" jsonschema:"The data the task asks for."`
}

// StatusInput is pr_monitor_status's input: one monitor, or every one.
type StatusInput struct {
	MonitorID string `json:"monitor_id,omitempty" jsonschema:"A monitor id from pr_monitor_start; omit it for every monitor."`
}

// StopInput is pr_monitor_stop's input.
type StopInput struct {
	MonitorID string `json:"monitor_id" jsonschema:"The monitor to stop (its id from pr_monitor_start), or all to stop every monitor."`
}

// ActionOutput is what the agent must do next. It is compact: structure over prose.
type ActionOutput struct {
	Action         string                    `json:"action" jsonschema:"execute: do the task, then call next_step with one of expected_events. ask_user: ask the user and answer with user_chose. polling: call next_step with ready again. stop or merged: monitoring is over."`
	MonitorID      string                    `json:"monitor_id"`
	State          string                    `json:"state"`
	Flow           string                    `json:"flow,omitempty"`
	Task           string                    `json:"task,omitempty"`
	Instructions   string                    `json:"instructions,omitempty"`
	ExpectedEvents []string                  `json:"expected_events,omitempty"`
	Question       *elicitation.Question     `json:"question,omitempty"`
	Context        *statemachine.TaskContext `json:"context,omitempty"`
	Message        string                    `json:"message,omitempty"`
	Summary        string                    `json:"summary,omitempty"`
	Next           string                    `json:"next,omitempty"`
}

// StatusOutput is pr_monitor_status's result.
type StatusOutput struct {
	Monitors []MonitorStatus `json:"monitors"`
}

// MonitorStatus is one monitor as it stands.
type MonitorStatus struct {
	MonitorID string `json:"monitor_id"`
	PR        string `json:"pr"`
	Title     string `json:"title,omitempty"`
	State     string `json:"state"`
	Node      string `json:"node"`
	Flow      string `json:"flow"`
	Summary   string `json:"summary"`
	// Saved: an earlier server saved this monitor and this one has not resumed it yet; the next
	// call that names it does.
	Saved bool `json:"saved,omitempty" jsonschema:"Saved by an earlier server and not resumed yet; the next call naming it resumes it."`
	// Attention is the top attention of the last poll, with its reason.
	Attention       string          `json:"attention,omitempty"`
	AttentionReason string          `json:"attention_reason,omitempty"`
	Pending         *ActionOutput   `json:"pending,omitempty"`
	LastAction      *ActionOutput   `json:"last_action,omitempty"`
	LastPoll        string          `json:"last_poll,omitempty"`
	NeedsRefine     bool            `json:"needs_refine"`
	CI              string          `json:"ci,omitempty"`
	Reviews         *ReviewsSummary `json:"reviews,omitempty"`
}

// ReviewsSummary is who approved and who requested changes.
type ReviewsSummary struct {
	Approvals          []string `json:"approvals,omitempty"`
	StaleApprovals     []string `json:"stale_approvals,omitempty"`
	ChangesRequestedBy []string `json:"changes_requested_by,omitempty"`
}

// StopOutput is pr_monitor_stop's result.
type StopOutput struct {
	Action  string   `json:"action" jsonschema:"Always stop."`
	Stopped []string `json:"stopped"`
	Message string   `json:"message"`
}
