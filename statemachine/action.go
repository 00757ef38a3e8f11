package statemachine

import (
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Action is the one thing Step asks its caller to do next.
type Action struct {
	Kind  ActionKind `json:"action"`
	State State      `json:"state"`
	Node  Node       `json:"node"`
	Flow  Flow       `json:"flow"`

	// Task, Instructions, ExpectedEvents and Context describe an execute action. ExpectedEvents is
	// never empty on execute: it names the events that complete the task.
	Task           TaskName     `json:"task,omitempty"`
	Instructions   string       `json:"instructions,omitempty"`
	ExpectedEvents []Event      `json:"expected_events,omitempty"`
	Context        *TaskContext `json:"context,omitempty"`

	// Question is set on ask_user.
	Question *elicitation.Question `json:"question,omitempty"`

	// Server is set on the internal server action.
	Server *ServerRequest `json:"server,omitempty"`

	// Message is a one-line note for the agent and the user.
	Message string `json:"message,omitempty"`

	// PollNow asks the caller to poll at once rather than after the usual interval (the machine
	// just did something on GitHub and wants to see the result).
	PollNow bool `json:"poll_now,omitempty"`

	// SnoozedUntil is set on polling while the open question is snoozed: it is asked again then
	// (or sooner, when the pull request changes).
	SnoozedUntil time.Time `json:"snoozed_until,omitzero"`
}

// ServerRequest is GitHub work the server does itself; its Outcome comes back as an input.
type ServerRequest struct {
	Kind ServerActionKind `json:"kind"`
	// Describe is a one-line human description ("reply to bob on main.go:12").
	Describe string `json:"describe"`

	// Reply and resolve.
	ThreadID  string          `json:"thread_id,omitempty"`
	ReplyToID int64           `json:"reply_to_id,omitempty"`
	Body      string          `json:"body,omitempty"` // without the marker: the executor appends Marker
	Marker    prstatus.Marker `json:"marker,omitzero"`

	// Review requests.
	Reviewers []string `json:"reviewers,omitempty"`

	// CI: the failing checks whose logs to fetch, or whose workflow runs to re-run.
	Checks []prstatus.CheckFact `json:"checks,omitempty"`
	RunIDs []int64              `json:"run_ids,omitempty"`

	// Merge.
	MergeMethod     string `json:"merge_method,omitempty"`
	ExpectedHeadSHA string `json:"expected_head_sha,omitempty"`
	Admin           bool   `json:"admin,omitempty"`
	// Shown is what the user saw when they chose to merge: the executor re-reads the pull request
	// and merges only if it still matches.
	Shown *prstatus.MergeView `json:"shown,omitempty"`
}

// PRContext identifies the pull request in a task.
type PRContext struct {
	Ref     string    `json:"ref"`
	Title   Untrusted `json:"title,omitempty"`
	URL     string    `json:"url,omitempty"`
	HeadRef string    `json:"head_ref,omitempty"`
	BaseRef string    `json:"base_ref,omitempty"`
	HeadSHA string    `json:"head_sha,omitempty"`
}

// ReviewContext is a review in play.
type ReviewContext struct {
	ID          string    `json:"id,omitempty"`
	Reviewer    string    `json:"reviewer"`
	State       string    `json:"state"`
	SubmittedAt string    `json:"submitted_at,omitempty"`
	Body        Untrusted `json:"body,omitempty"`
}

// CommentContext is one comment of a thread.
type CommentContext struct {
	Author string    `json:"author"`
	At     string    `json:"at,omitempty"`
	Body   Untrusted `json:"body"`
	// Association is the author's relation to the repository as GitHub reports it (OWNER, MEMBER,
	// COLLABORATOR can review; CONTRIBUTOR, NONE, ... cannot): a reply from someone who cannot
	// review is context, not a request.
	Association prstatus.Association `json:"association,omitempty"`
}

// ThreadContext is a review thread in play.
type ThreadContext struct {
	ID            string           `json:"id"`
	Reviewer      string           `json:"reviewer"`
	ReviewerIsBot bool             `json:"reviewer_is_bot,omitempty"`
	Path          string           `json:"path,omitempty"`
	Line          int              `json:"line,omitempty"`
	Outdated      bool             `json:"outdated,omitempty"`
	URL           string           `json:"url,omitempty"`
	Comment       Untrusted        `json:"comment"`
	Replies       []CommentContext `json:"replies,omitempty"`
	// ReviewerReplied: the PR's side answered before and the reviewer wrote again.
	ReviewerReplied bool `json:"reviewer_replied,omitempty"`
	// ReplyToID is the REST id replies go to; LastCommentID identifies the thread's state.
	ReplyToID     int64  `json:"reply_to_id,omitempty"`
	LastCommentID string `json:"last_comment_id,omitempty"`
}

// CheckContext is a failing or cancelled check.
type CheckContext struct {
	Name     string `json:"name"`
	Result   string `json:"result"`
	URL      string `json:"url,omitempty"`
	Workflow string `json:"workflow,omitempty"`
	// Rerunnable: a GitHub Actions job the server can re-run. External CI is reported with its
	// link only; no re-run is promised where none exists.
	Rerunnable bool `json:"rerunnable"`
	// FailingOnBase: the check fails on the base branch's tip too (the failure may not be the
	// pull request's).
	FailingOnBase bool `json:"failing_on_base,omitempty"`
}

// FreeformContext is the typed payload of interpret_freeform (docs/architecture.md#asking-the-user-and-the-hosts-model).
type FreeformContext struct {
	Flow        Flow                       `json:"flow"`
	Reason      elicitation.FreeformReason `json:"reason"`
	Elicitation elicitation.Elicited       `json:"elicitation"`
	UserReply   elicitation.UserReply      `json:"user_reply"`
	// UserOnly are the choices only the user's own pick in the prompt can make (they merge): the
	// agent never sends them for the user; when the reply means one, the question goes back.
	UserOnly []elicitation.Value `json:"user_only,omitempty"`
	Thread   *ThreadContext      `json:"comment,omitempty"`
	Checks   []CheckContext      `json:"failing_checks,omitempty"`
	Analysis *Analysis           `json:"server_analysis,omitempty"`
}

// Analysis is what the server (or the agent, earlier) concluded so far.
type Analysis struct {
	Recommendation string `json:"recommendation,omitempty"`
	Findings       string `json:"investigation_findings,omitempty"`
	SuggestedFix   string `json:"suggested_fix,omitempty"`
}

// TaskContext is the typed context of an execute action (and of some questions).
type TaskContext struct {
	PR PRContext `json:"pr"`
	// Progress is "2/5" while iterating over threads.
	Progress string `json:"progress,omitempty"`
	// Round is the review round being answered (refine and its follow-up).
	Round   string          `json:"round,omitempty"`
	Reviews []ReviewContext `json:"reviews,omitempty"`
	Threads []ThreadContext `json:"threads,omitempty"`
	Thread  *ThreadContext  `json:"thread,omitempty"`
	// Recommendation is the explanation's recommendation (apply_recommendation, questions).
	Recommendation string `json:"recommendation,omitempty"`
	// ReplyKind is addressed or replied (compose_reply).
	ReplyKind prstatus.ReplyKind `json:"reply_kind,omitempty"`

	FailedChecks    []CheckContext `json:"failed_checks,omitempty"`
	CancelledChecks []CheckContext `json:"cancelled_checks,omitempty"`
	Logs            []CheckLog     `json:"log_tails,omitempty"`
	Findings        string         `json:"findings,omitempty"`
	SuggestedFix    string         `json:"suggested_fix,omitempty"`
	IssueType       string         `json:"issue_type,omitempty"`

	Freeform *FreeformContext `json:"freeform,omitempty"`

	// Cluster is set when this feedback repeats the theme of earlier fixes (docs/architecture.md#memory-across-review-rounds).
	Cluster *ClusterContext `json:"cluster,omitempty"`
	// PriorAttempt is the reviewer's verdict on the previous attempt; absent on a fresh PR.
	PriorAttempt *PriorAttempt `json:"prior_attempt,omitempty"`

	// HeadSnapshot is the head when the task began; recovery compares against it.
	HeadSnapshot string `json:"head_snapshot,omitempty"`
	// Note is a short server remark for this task.
	Note string `json:"note,omitempty"`
	// Omitted says what was cut to keep the payload small, and where to read it whole. The
	// machine never sets it; the server's bounding step does.
	Omitted []string `json:"omitted,omitempty"`
}
