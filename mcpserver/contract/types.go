package contract

import (
	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// StartInput is pr_monitor_start's input.
type StartInput struct {
	PR string `json:"pr" jsonschema:"The pull request: OWNER/REPO#N or its URL."`
}

// StartOutput is pr_monitor_start's result.
type StartOutput struct {
	MonitorID string `json:"monitor_id"`
	Resumed   bool   `json:"resumed" jsonschema:"An earlier monitor of this PR was resumed where it left off."`
	PR        string `json:"pr"`
	Title     string `json:"title"`
	URL       string `json:"url"`
	Summary   string `json:"summary"`
	// Pending is what the resumed monitor was waiting on (a question or a task), if anything.
	Pending *ActionOutput `json:"pending,omitempty"`
	Next    string        `json:"next" jsonschema:"The call to make next."`
}

// NextStepInput is pr_monitor_next_step's input.
type NextStepInput struct {
	MonitorID string `json:"monitor_id" jsonschema:"From pr_monitor_start; all: whichever PR needs you first."`
	Event     string `json:"event" jsonschema:"ready to start or go on; user_chose to answer ask_user; else one of the execute action's expected_events.,enum=ready,enum=user_chose,enum=comment_addressed,enum=comment_replied,enum=investigation_complete,enum=push_completed,enum=task_complete"`
	Choice    string `json:"choice,omitempty" jsonschema:"user_chose: the value of the chosen choice (not its label)."`
	// QuestionSeq makes an answer exact: a repeat of an answer already taken gets what it led to,
	// an answer to a question no longer open is refused rather than applied to another.
	QuestionSeq int                     `json:"question_seq,omitempty" jsonschema:"user_chose: the question's seq. An answer sent again returns what it led to."`
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
	Action         string                    `json:"action" jsonschema:"enum=execute,enum=ask_user,enum=polling,enum=stop,enum=merged"`
	MonitorID      string                    `json:"monitor_id"`
	PR             string                    `json:"pr,omitempty"`
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
	// QuietUntil: quiet hours hold a question back until then (RFC 3339); SnoozedUntil: the user
	// snoozed the open question until then. Either way, keep looping and don't ask the user.
	QuietUntil   string `json:"quiet_until,omitempty" jsonschema:"Quiet hours: the question waits till then. Keep looping."`
	SnoozedUntil string `json:"snoozed_until,omitempty"`
}

// StatusOutput is pr_monitor_status's result. Asked for one monitor, it is that monitor in
// detail; asked for every one, it is one line item per monitor, within MaxPayload in all.
type StatusOutput struct {
	Monitors []MonitorStatus `json:"monitors"`
	// Omitted is how many monitors a listing left out to stay within its bound: those waiting on
	// nobody go first.
	Omitted int `json:"omitted,omitempty" jsonschema:"Monitors not listed (those waiting on nobody first); ask for one by monitor_id."`
	// QuietUntil is when the quiet hours end, while they last (RFC 3339).
	QuietUntil string `json:"quiet_until,omitempty"`
	// Watcher is how the server's watcher reads GitHub: its pace and its share of the token's
	// hourly points (absent before the first monitor).
	Watcher *WatcherStatus `json:"watcher,omitempty"`
}

// WatcherStatus is the watcher's pace and spend, as pr_monitor_status shows it.
type WatcherStatus struct {
	PRs int `json:"prs"`
	// Cycle is the time between two looks at the same pull request ("8s").
	Cycle string `json:"cycle"`
	// Budget is the share of the token's hourly points the watcher may spend ("25%").
	Budget string `json:"budget"`
	// PointsThisHour is what the watcher spent this hour, of BudgetPoints it may.
	PointsThisHour int `json:"points_this_hour"`
	BudgetPoints   int `json:"budget_points"`
	// Remaining and Limit are GitHub's hourly GraphQL points for the token, as last read.
	Remaining int `json:"remaining,omitempty"`
	Limit     int `json:"limit,omitempty"`
	// HeldUntil: GitHub asked for no request before this time (RFC 3339).
	HeldUntil string `json:"held_until,omitempty"`
	// Writes is the token's write pacing, shown while it holds a write back.
	Writes *WritesStatus `json:"writes,omitempty"`
}

// WritesStatus is the token's write pacing while it holds something back: GitHub asks for a
// second between two writes and caps content creation at 80 a minute and 500 an hour; prmonitor
// keeps under both across every monitor (docs/watcher.md, "Timeouts and writes").
type WritesStatus struct {
	// HeldUntil: a write was held back, for longer than its call could wait, until then (RFC
	// 3339); Reason says why. It goes in a later call.
	HeldUntil string `json:"held_until,omitempty"`
	Reason    string `json:"reason,omitempty"`
	// NextWrite is the earliest the next write may go (RFC 3339), while that is still to come.
	NextWrite string `json:"next_write,omitempty"`
	// ContentLastMinute and ContentLastHour count the comments, replies and reviews sent.
	ContentLastMinute int `json:"content_last_minute"`
	ContentLastHour   int `json:"content_last_hour"`
}

// MonitorStatus is one monitor as it stands: a listing's line item, whose Pending is cut to its
// kind, task and question; asked for by id, its Pending whole and its Detail.
type MonitorStatus struct {
	MonitorID string `json:"monitor_id"`
	PR        string `json:"pr"`
	Title     string `json:"title,omitempty"`
	State     string `json:"state"`
	Summary   string `json:"summary"`
	// Attention is the top attention of the last poll.
	Attention string `json:"attention,omitempty"`
	// Saved: an earlier server saved this monitor and this one has not resumed it yet; the next
	// call that names it does.
	Saved bool `json:"saved,omitempty" jsonschema:"Saved by an earlier server, not resumed yet."`
	// SnoozedUntil: the user snoozed the open question until then (RFC 3339).
	SnoozedUntil string `json:"snoozed_until,omitempty"`
	// Pending is what the monitor waits on (a question or a task), if anything.
	Pending *ActionOutput  `json:"pending,omitempty"`
	Detail  *MonitorDetail `json:"detail,omitempty"`
}

// MonitorDetail is what pr_monitor_status adds for one monitor asked by id.
type MonitorDetail struct {
	Node            string          `json:"node"`
	Flow            string          `json:"flow,omitempty"`
	AttentionReason string          `json:"attention_reason,omitempty"`
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
	// NotActedOn is feedback from people who cannot review (not an owner, member or collaborator,
	// nor a configured review bot): shown, never a task, never a block on merging.
	NotActedOn []OtherFeedback `json:"not_acted_on,omitempty"`
}

// OtherFeedback is one review or thread by someone who cannot review.
type OtherFeedback struct {
	Author      string `json:"author"`
	Association string `json:"association" jsonschema:"How the author relates to the repository, in words."`
	Where       string `json:"where"`
	Path        string `json:"path,omitempty" jsonschema:"A thread's file, as GitHub names it: as it is when plainly a name, else fenced."`
	Line        int    `json:"line,omitempty"`
	Text        string `json:"text,omitempty" jsonschema:"What they wrote: untrusted, fenced, clipped."`
}

// StopOutput is pr_monitor_stop's result.
type StopOutput struct {
	Action  string   `json:"action" jsonschema:"Always stop."`
	Stopped []string `json:"stopped"`
	Message string   `json:"message"`
}
