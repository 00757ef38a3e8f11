package elicitation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Value is the machine-readable value of a choice. Values are stable API: agents answer
// user_chose with them and the state machine routes on them. Display text lives only in labels.
type Value string

// Every choice value any question can offer.
const (
	Stop         Value = "stop"
	Resume       Value = "resume"
	HandleMyself Value = "handle_myself"
	Retry        Value = "retry"

	AddressAll          Value = "address_all"
	ExplainAll          Value = "explain_all"
	AddressSpecific     Value = "address_specific"
	Address             Value = "address"
	ApplyRecommendation Value = "apply_recommendation"
	Skip                Value = "skip"
	Done                Value = "done"
	Continue            Value = "continue"
	DoneHandling        Value = "done_handling"
	ResolveThread       Value = "resolve"

	RefineAgain     Value = "refine_again"
	TreatAsAnswered Value = "treat_as_answered"

	TreatAsAddressed Value = "treat_as_addressed"
	TreatAsReplied   Value = "treat_as_replied"
	TreatAsPushed    Value = "treat_as_pushed"
	BackToTask       Value = "back_to_task"

	ApplyFix    Value = "apply_fix"
	RerunFailed Value = "rerun_failed"
	RerunAll    Value = "rerun_all"
	// WaitForBase waits for checks that fail on the base branch's tip too to pass there: no fix
	// task, the failure is not the pull request's.
	WaitForBase Value = "wait_for_base"
	// LookAnyway has the agent investigate a failure the base branch shares.
	LookAnyway Value = "look_anyway"
	// WaitForLower waits for the pull request a stacked one is based on to merge first.
	WaitForLower Value = "wait_for_lower"

	Rebase Value = "rebase"

	Merge           Value = "merge"
	MergeAdmin      Value = "merge_admin"
	WaitForApprover Value = "wait_for_approver"
	UpdateBranch    Value = "update_branch"
	// AutoMerge turns on GitHub's auto-merge, pinned to the head the user saw: GitHub merges the
	// pull request by itself once its requirements are met (or queues it, behind a merge queue).
	AutoMerge Value = "auto_merge"

	RequestReReview Value = "request_rereview"
	SkipReminder    Value = "skip_reminder"

	// Snooze puts the question off: it is not asked again for an hour, unless the pull
	// request changes meanwhile. Every question offers it.
	Snooze Value = "snooze"
)

// pickPrefix starts the values of the dynamic pick list: pick:1, pick:2, ...
const pickPrefix = "pick:"

// Pick is the value of the n-th (1-based) entry of a pick list.
func Pick(n int) Value { return Value(pickPrefix + strconv.Itoa(n)) }

// PickIndex returns n for a pick:n value.
func PickIndex(v Value) (int, bool) {
	s, ok := strings.CutPrefix(string(v), pickPrefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// Choice is one option of a question.
type Choice struct {
	Value Value  `json:"value"`
	Label string `json:"label"`
}

// QuestionID names a kind of question. Each has one entry in the catalogue.
type QuestionID string

// Every question the monitor can ask.
const (
	QCommentsMulti     QuestionID = "comments_multi"
	QCommentSingle     QuestionID = "comment_single"
	QCommentItem       QuestionID = "comment_item"
	QCommentExplained  QuestionID = "comment_explained"
	QCommentPick       QuestionID = "comment_pick"
	QCommentsRemaining QuestionID = "comments_remaining"
	QCommentsManual    QuestionID = "comments_manual"
	QRefineStalled     QuestionID = "refine_stalled"
	QCIResults         QuestionID = "ci_results"
	QCICancelled       QuestionID = "ci_cancelled"
	QCIBaseFailing     QuestionID = "ci_base_failing"
	QMergeConflict     QuestionID = "merge_conflict"
	QReadyToMerge      QuestionID = "ready_to_merge"
	QReadyStacked      QuestionID = "ready_stacked"
	QMergeWhenReady    QuestionID = "merge_when_ready"
	QMergeRefused      QuestionID = "merge_refused"
	QAutoMergeOff      QuestionID = "auto_merge_off"
	QStaleApproval     QuestionID = "stale_approval"
	QRecovery          QuestionID = "recovery"
	QActionFailed      QuestionID = "action_failed"
)

// Question is one question as asked: which kind, a sequence number unique within the monitor (so
// a late answer to an older question is recognised), the text, and the choices offered now.
type Question struct {
	ID      QuestionID `json:"id"`
	Seq     int        `json:"seq"`
	Text    string     `json:"question"`
	Choices []Choice   `json:"choices"`
}

// Offers reports whether v is one of the question's choices.
func (q Question) Offers(v Value) bool {
	return slices.ContainsFunc(q.Choices, func(c Choice) bool { return c.Value == v })
}

// Values lists the values offered, in order.
func (q Question) Values() []Value {
	out := make([]Value, len(q.Choices))
	for i, c := range q.Choices {
		out[i] = c.Value
	}
	return out
}

// Label returns the label of v, or v itself when it is not offered.
func (q Question) Label(v Value) string {
	for _, c := range q.Choices {
		if c.Value == v {
			return c.Label
		}
	}
	return string(v)
}

// Spec is the catalogue entry of a question: every choice it can ever offer (some only in some
// situations), the value a declined prompt means ("I'll handle it" within that flow, never a
// silent stop), and whether it also carries a dynamic pick list.
type Spec struct {
	ID      QuestionID
	Purpose string
	Choices []Choice
	Decline Value
	Picks   bool
}

// Labels used by more than one question.
var (
	stopChoice   = Choice{Stop, "Stop monitoring"}
	resumeChoice = Choice{Resume, "Resume monitoring"}
	handleChoice = Choice{HandleMyself, "I'll handle it myself"}
	snoozeChoice = Choice{Snooze, "Ask me again in 1 hour"}
)

// Catalogue returns every question spec, in a fixed order. It is the one source for the state
// machine, the MCP server, the tests that walk every choice, and the docs.
func Catalogue() []Spec {
	return []Spec{
		{ID: QCommentsMulti, Purpose: "several new review threads need action", Decline: HandleMyself, Choices: []Choice{
			{AddressAll, "Address all comments, one by one"},
			{ExplainAll, "Explain each comment, then decide"},
			{AddressSpecific, "Pick one comment to address"},
			{HandleMyself, "I'll handle the comments myself"},
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCommentSingle, Purpose: "one review thread, explained", Decline: HandleMyself, Choices: []Choice{
			{ApplyRecommendation, "Apply the recommendation"},
			{Address, "Do what the reviewer asks"},
			{ResolveThread, "Resolve the thread (the reviewer's reply settles it)"},
			{Skip, "Skip this comment"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCommentItem, Purpose: "address-all: the next thread", Decline: Done, Choices: []Choice{
			{Address, "Address this comment"},
			{Skip, "Skip this comment"},
			{Done, "Done: resume monitoring"},
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCommentExplained, Purpose: "explain-all: the next thread, explained", Decline: Done, Choices: []Choice{
			{ApplyRecommendation, "Apply the recommendation"},
			{Address, "Do what the reviewer asks"},
			{Skip, "Skip this comment"},
			{Done, "Done: resume monitoring"},
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCommentPick, Purpose: "pick one thread to address", Decline: HandleMyself, Picks: true, Choices: []Choice{
			{HandleMyself, "I'll handle them myself"},
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCommentsRemaining, Purpose: "one thread done, others remain", Decline: Done, Choices: []Choice{
			{Continue, "Address the next comment"},
			{Done, "I'll handle the rest myself"},
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCommentsManual, Purpose: "the user handles the threads", Decline: DoneHandling, Choices: []Choice{
			{DoneHandling, "Done: continue monitoring"},
			snoozeChoice,
			stopChoice,
		}},
		{ID: QRefineStalled, Purpose: "a refine ended without a substantive commit", Decline: HandleMyself, Choices: []Choice{
			{RefineAgain, "Refine again"},
			{TreatAsAnswered, "The review is answered (no new commit needed)"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCIResults, Purpose: "CI failed and was investigated", Decline: HandleMyself, Choices: []Choice{
			{ApplyFix, "Apply the suggested fix"},
			{RerunFailed, "Re-run the failed jobs"},
			{RerunAll, "Run a new build (re-run the whole workflows)"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCICancelled, Purpose: "checks were cancelled", Decline: HandleMyself, Choices: []Choice{
			{RerunFailed, "Re-run the cancelled jobs"},
			resumeChoice,
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QCIBaseFailing, Purpose: "checks failed that fail on the base branch's tip too", Decline: WaitForBase, Choices: []Choice{
			{WaitForBase, "Wait for the base branch to go green (no fix task: the failure is not this pull request's)"},
			{LookAnyway, "Have the agent look at the failure anyway"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QMergeConflict, Purpose: "the branch conflicts with its base", Decline: HandleMyself, Choices: []Choice{
			{Rebase, "Rebase onto the base branch and resolve the conflicts"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QReadyToMerge, Purpose: "approved, green, nothing open", Decline: HandleMyself, Choices: []Choice{
			{Merge, "Merge the pull request"},
			{AutoMerge, "Merge automatically once GitHub allows it (auto-merge)"},
			{UpdateBranch, "Update the branch with its base branch (GitHub merges the base in; checks run again)"},
			{WaitForApprover, "Wait for another approver"},
			resumeChoice,
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QReadyStacked, Purpose: "approved and green, but stacked on another open pull request", Decline: WaitForLower, Choices: []Choice{
			{WaitForLower, "Wait for the pull request it is stacked on to merge first"},
			{Merge, "Merge it now, into the branch of the pull request it is stacked on"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QMergeWhenReady, Purpose: "approved, only checks still running, auto-merge allowed", Decline: HandleMyself, Choices: []Choice{
			{AutoMerge, "Merge automatically when the checks pass"},
			{Resume, "Keep watching; ask me when the checks pass"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QMergeRefused, Purpose: "GitHub refused the merge", Decline: HandleMyself, Choices: []Choice{
			{Merge, "Merge the pull request now"},
			{MergeAdmin, "Merge with administrator bypass"},
			{UpdateBranch, "Update the branch with its base branch (GitHub merges the base in; checks run again)"},
			{WaitForApprover, "Wait for another approver"},
			resumeChoice,
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QAutoMergeOff, Purpose: "auto-merge was turned off: the pull request changed", Decline: Resume, Choices: []Choice{
			{Resume, "Keep watching"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QStaleApproval, Purpose: "green, but approvals are on an older commit", Decline: HandleMyself, Choices: []Choice{
			{RequestReReview, "Ask the approvers to review again"},
			{SkipReminder, "Don't remind them"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QRecovery, Purpose: "a task ended in an unexpected way", Decline: Resume, Choices: []Choice{
			{TreatAsAddressed, "Treat the comment as addressed"},
			{TreatAsReplied, "Treat it as replied on GitHub (post nothing)"},
			{TreatAsPushed, "Treat the task as pushed"},
			{Skip, "Skip this comment"},
			{BackToTask, "Go back to the task"},
			resumeChoice,
			snoozeChoice,
			stopChoice,
		}},
		{ID: QActionFailed, Purpose: "a GitHub action failed", Decline: HandleMyself, Choices: []Choice{
			{Retry, "Try again"},
			{Skip, "Skip this comment"},
			handleChoice,
			snoozeChoice,
			stopChoice,
		}},
	}
}

// SpecFor returns the catalogue entry of id.
func SpecFor(id QuestionID) (Spec, bool) {
	for _, s := range Catalogue() {
		if s.ID == id {
			return s, true
		}
	}
	return Spec{}, false
}

// Ask builds a question of kind id offering the given values, in catalogue order, with the
// catalogue's labels, followed by any pick-list entries. It fails on a value the catalogue does not
// list for id: no question can offer a choice without a handler.
func Ask(id QuestionID, text string, values []Value, picks ...Choice) (Question, error) {
	spec, ok := SpecFor(id)
	if !ok {
		return Question{}, fmt.Errorf("elicitation: unknown question %q", id)
	}
	if len(picks) > 0 && !spec.Picks {
		return Question{}, fmt.Errorf("elicitation: question %q has no pick list", id)
	}
	q := Question{ID: id, Text: text}
	for _, p := range picks {
		if _, ok := PickIndex(p.Value); !ok {
			return Question{}, fmt.Errorf("elicitation: %q is not a pick value", p.Value)
		}
		q.Choices = append(q.Choices, p)
	}
	for _, v := range values {
		if !slices.ContainsFunc(spec.Choices, func(c Choice) bool { return c.Value == v }) {
			return Question{}, fmt.Errorf("elicitation: question %q cannot offer %q", id, v)
		}
	}
	for _, c := range spec.Choices {
		if slices.Contains(values, c.Value) {
			q.Choices = append(q.Choices, c)
		}
	}
	return q, nil
}

// DeclineValue is what a declined prompt of kind id means.
func DeclineValue(id QuestionID) Value {
	if s, ok := SpecFor(id); ok {
		return s.Decline
	}
	return HandleMyself
}
