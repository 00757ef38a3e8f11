package statemachine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// TriggerKind is the kind of input that makes a move.
type TriggerKind string

// Trigger kinds.
const (
	ByEvent    TriggerKind = "event"    // the agent's event (a completion, a ready, an unexpected one)
	ByChoice   TriggerKind = "choice"   // the user's answer: a choice, a decline that means one, or words an agent mapped to one
	ByFreeform TriggerKind = "freeform" // the user typed text none of the choices matched
	ByPoll     TriggerKind = "poll"     // a fresh poll result
	ByOutcome  TriggerKind = "outcome"  // a server-side action finished
	ByHead     TriggerKind = "head"     // the head was re-read for a recovery
	ByStop     TriggerKind = "stop"     // pr_monitor_stop
	ByDecision TriggerKind = "decided"  // leaving a transient node within the same step
)

// Trigger is what makes a row fire: the input's kind and, where it matters, which events,
// choices or attentions.
type Trigger struct {
	By         TriggerKind
	Events     []Event
	Choices    []elicitation.Value
	Picks      bool // any pick:N choice
	Attentions []prstatus.AttentionKind
}

func onEvent(evs ...Event) Trigger { return Trigger{By: ByEvent, Events: evs} }
func onChoice(vs ...elicitation.Value) Trigger {
	return Trigger{By: ByChoice, Choices: vs}
}
func onPick() Trigger                                { return Trigger{By: ByChoice, Picks: true} }
func onPoll(kinds ...prstatus.AttentionKind) Trigger { return Trigger{By: ByPoll, Attentions: kinds} }
func onOutcome() Trigger                             { return Trigger{By: ByOutcome} }
func onHead() Trigger                                { return Trigger{By: ByHead} }
func onStop() Trigger                                { return Trigger{By: ByStop} }
func onFreeform() Trigger                            { return Trigger{By: ByFreeform} }
func decided() Trigger                               { return Trigger{By: ByDecision} }

// reports are the agent's events other than an answer: what a task in progress may be sent.
var reports = []Event{EventReady, EventCommentAddressed, EventCommentReplied, EventInvestigationComplete,
	EventPushCompleted, EventTaskComplete}

// matches reports whether the trigger fits the step's input. from is the node the row leaves.
func (t Trigger) matches(s *step, from Node) bool {
	in := s.in
	switch t.By {
	case ByEvent:
		return in.Kind == InputEvent && (len(t.Events) == 0 || slices.Contains(t.Events, in.Event))
	case ByChoice:
		if s.choice == "" {
			return false
		}
		if _, pick := elicitation.PickIndex(s.choice); pick {
			return t.Picks
		}
		return slices.Contains(t.Choices, s.choice)
	case ByFreeform:
		return in.Kind == InputFreeform
	case ByPoll:
		if in.Kind != InputPoll {
			return false
		}
		return len(t.Attentions) == 0 || (s.att != nil && slices.Contains(t.Attentions, s.att.Kind))
	case ByOutcome:
		return in.Kind == InputOutcome
	case ByHead:
		return in.Kind == InputHead
	case ByStop:
		return in.Kind == InputStop
	case ByDecision:
		return from.transient()
	}
	return false
}

// String renders the trigger for the docs.
func (t Trigger) String() string {
	var what []string
	for _, e := range t.Events {
		what = append(what, "`"+string(e)+"`")
	}
	if t.Picks {
		what = append(what, "`pick:N`")
	}
	for _, v := range t.Choices {
		what = append(what, "`"+string(v)+"`")
	}
	for _, a := range t.Attentions {
		what = append(what, "`"+string(a)+"`")
	}
	if len(what) == 0 {
		return string(t.By)
	}
	return fmt.Sprintf("%s %s", t.By, strings.Join(what, ", "))
}
