package statemachine

import (
	"fmt"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// InputKind says where an input comes from.
type InputKind string

// Input kinds.
const (
	InputEvent    InputKind = "event"    // the agent called next_step (or answered a question)
	InputDecline  InputKind = "decline"  // the user declined the elicitation
	InputCancel   InputKind = "cancel"   // the user dismissed the elicitation
	InputFreeform InputKind = "freeform" // the user typed text that is none of the choices
	InputPoll     InputKind = "poll"     // a fresh poll result
	InputOutcome  InputKind = "outcome"  // a server-side action finished
	InputHead     InputKind = "head"     // the head was re-read for recovery
	InputStop     InputKind = "stop"     // pr_monitor_stop
)

// AnsweredBy says whose answer a choice is. It decides one thing: whether the choice may merge
// (or have GitHub merge later), which only the user's own answer may (docs/security.md, "Consent").
type AnsweredBy string

// Whose answers count as the user's. The zero value is anyone else's: the agent answering a
// question the host can show the user itself, or a model's reading of the user's free text.
const (
	// ByUser: the user picked the choice in a prompt the host showed them (elicitation, in either
	// protocol era), or typed words there that match it whole (elicitation.Match).
	ByUser AnsweredBy = "user"
	// ByRelay: the agent relays the user's answer to a question the host could not show them (no
	// elicitation, a prompt the host refused or failed, a task that cannot ask).
	ByRelay AnsweredBy = "relay"
)

// consents reports whether an answer so given may merge.
func (b AnsweredBy) consents() bool { return b == ByUser || b == ByRelay }

// EventData is the structured payload an agent sends with an event: pr_monitor_next_step's data
// argument, whose schema the jsonschema tags describe.
type EventData struct {
	ReplyText      string `json:"reply_text,omitempty" jsonschema:"The reply the server posts (comment_addressed, comment_replied)."`
	Findings       string `json:"findings,omitempty" jsonschema:"Root cause and evidence (investigation_complete)."`
	SuggestedFix   string `json:"suggested_fix,omitempty" jsonschema:"The fix in words, no diff (investigation_complete)."`
	IssueType      string `json:"issue_type,omitempty" jsonschema:"code, flaky, infrastructure or unknown (investigation_complete)."`
	Recommendation string `json:"recommendation,omitempty" jsonschema:"Your recommendation (explain_comment, interpret_freeform)."`
}

// maxDataText bounds each data field; GitHub's own comment limit is 65536 characters.
const maxDataText = 60000

func (d EventData) validate() error {
	for name, v := range map[string]string{"reply_text": d.ReplyText, "findings": d.Findings,
		"suggested_fix": d.SuggestedFix, "issue_type": d.IssueType, "recommendation": d.Recommendation} {
		if len(v) > maxDataText {
			return fmt.Errorf("%w: data.%s is %d bytes; the limit is %d", ErrBadInput, name, len(v), maxDataText)
		}
	}
	return nil
}

// FreeformAnswer is text the user typed instead of picking a choice, after the deterministic
// matcher and (when offered) sampling failed to map it to a choice.
type FreeformAnswer struct {
	Text           string                     `json:"text"`
	Classification elicitation.Classification `json:"classification"`
	Reasoning      string                     `json:"reasoning,omitempty"`
}

// Outcome is the result of a server-side action.
type Outcome struct {
	Kind ServerActionKind `json:"kind"`
	OK   bool             `json:"ok"`
	// Error is a one-line cause when OK is false.
	Error string `json:"error,omitempty"`
	// Refused: GitHub refused the merge for a reason the user can act on (branch policy, not
	// mergeable). Error says why.
	Refused bool `json:"refused,omitempty"`
	// HeadMoved: the merge was not attempted because the head is no longer the one the user saw.
	HeadMoved bool `json:"head_moved,omitempty"`
	// Logs are the failing jobs' log tails (fetch_ci_logs).
	Logs []CheckLog `json:"logs,omitempty"`
	// SHA is the merge commit (merge).
	SHA string `json:"sha,omitempty"`
	// Changed says what the pull request shows that the user was not shown when they chose to
	// merge; nothing was merged. Shown is the pull request as it is now.
	Changed []string            `json:"changed,omitempty"`
	Shown   *prstatus.MergeView `json:"shown,omitempty"`
}

// CheckLog is the tail of one failing job's log.
type CheckLog struct {
	Check     string    `json:"check"`
	JobID     int64     `json:"job_id,omitempty"`
	Tail      Untrusted `json:"tail,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
	Error     string    `json:"error,omitempty"`
	// Signature is the failure's signature, read from the tail (the server sets it).
	Signature *prstatus.FailureSignature `json:"signature,omitempty"`
	// Flaky is the evidence that the signature is flaky in this repository ("passed on a re-run
	// of the same commit on #41 and on this PR; failed 3 of the last 5 runs"); empty when it is
	// not known to be.
	Flaky string `json:"flaky,omitempty"`
	// TestChanged: the pull request adds or changes the failing test's file, or the log names
	// none (a flaky failure there may be one the pull request made flaky).
	TestChanged bool `json:"test_changed,omitempty"`
}

// HeadRefresh is the head as re-read for recovery.
type HeadRefresh struct {
	OK    bool   `json:"ok"`
	SHA   string `json:"sha,omitempty"`
	Error string `json:"error,omitempty"`
}

// Input is one thing that happened to a monitor.
type Input struct {
	Kind   InputKind         `json:"kind"`
	Event  Event             `json:"event,omitempty"`
	Choice elicitation.Value `json:"choice,omitempty"`
	Data   EventData         `json:"data,omitzero"`
	// QuestionSeq, when set on an answer, is the question it answers; a late answer to an older
	// question is rejected rather than applied to the wrong one.
	QuestionSeq int `json:"question_seq,omitempty"`
	// By says whose answer a choice is: only the user's may merge (AnsweredBy).
	By AnsweredBy `json:"by,omitempty"`
	// TaskUnseen, on a ready, says the task in progress may never have reached the agent (the
	// server restarted since it was handed out, or never handed it out in this process).
	TaskUnseen bool            `json:"task_unseen,omitempty"`
	Freeform   *FreeformAnswer `json:"freeform,omitempty"`
	Facts      *prstatus.Facts `json:"facts,omitempty"`
	Outcome    *Outcome        `json:"outcome,omitempty"`
	Head       *HeadRefresh    `json:"head,omitempty"`
}

// EventInput is an agent event.
func EventInput(e Event, choice elicitation.Value, data EventData) Input {
	return Input{Kind: InputEvent, Event: e, Choice: choice, Data: data}
}

// ChoiceInput is an answer to the pending question, nobody's in particular (From says whose).
func ChoiceInput(v elicitation.Value) Input { return EventInput(EventUserChose, v, EventData{}) }

// From is the input as answered by by.
func (in Input) From(by AnsweredBy) Input {
	in.By = by
	return in
}

// DeclineInput is a declined elicitation.
func DeclineInput() Input { return Input{Kind: InputDecline} }

// CancelInput is a dismissed elicitation.
func CancelInput() Input { return Input{Kind: InputCancel} }

// FreeformInput is a free-text answer none of the classifiers could map to a choice.
func FreeformInput(a FreeformAnswer) Input { return Input{Kind: InputFreeform, Freeform: &a} }

// PollInput is a fresh poll result.
func PollInput(f prstatus.Facts) Input { return Input{Kind: InputPoll, Facts: &f} }

// OutcomeInput is the result of a server-side action.
func OutcomeInput(o Outcome) Input { return Input{Kind: InputOutcome, Outcome: &o} }

// HeadInput is a re-read head.
func HeadInput(h HeadRefresh) Input { return Input{Kind: InputHead, Head: &h} }

// StopInput stops the monitor.
func StopInput() Input { return Input{Kind: InputStop} }

func (in Input) validate() error {
	switch in.Kind {
	case InputEvent:
		if !in.Event.Valid() {
			return fmt.Errorf("%w %q; want one of %v", ErrUnknownEvent, in.Event, Events)
		}
		if in.Event == EventUserChose && in.Choice == "" {
			return fmt.Errorf("%w: user_chose needs a choice", ErrBadInput)
		}
		return in.Data.validate()
	case InputDecline, InputCancel, InputStop:
		return nil
	case InputFreeform:
		if in.Freeform == nil {
			return fmt.Errorf("%w: freeform input without text", ErrBadInput)
		}
	case InputPoll:
		if in.Facts == nil {
			return fmt.Errorf("%w: poll input without facts", ErrBadInput)
		}
	case InputOutcome:
		if in.Outcome == nil {
			return fmt.Errorf("%w: outcome input without an outcome", ErrBadInput)
		}
	case InputHead:
		if in.Head == nil {
			return fmt.Errorf("%w: head input without a head", ErrBadInput)
		}
	default:
		return fmt.Errorf("%w: unknown input kind %q", ErrBadInput, in.Kind)
	}
	return nil
}
