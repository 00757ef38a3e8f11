package monitor

import (
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What a monitor writes to its event log, and how it names a task. Every event carries a sentence
// for a person reading the log and, for steps and GitHub work, the typed fields that
// `prmonitor status` reads (store.Event).

// TaskID identifies a task in progress: its name and when it began.
func TaskID(p statemachine.Position) string {
	if p.Task == nil {
		return ""
	}
	return string(p.Task.Name) + "@" + p.Task.StartedAt.UTC().Format(time.RFC3339Nano)
}

// StepEvent is the event logged for one step of a monitor's machine: the input it took, where it
// led, and the rows it fired. open is the question that was open when the input came (nil for
// none): an answer names it.
func StepEvent(open *elicitation.Question, in statemachine.Input, act statemachine.Action, fired []statemachine.Transition) store.Event {
	e := inputEvent(open, in)
	e.Kind, e.Summary = logKind(in), describeStep(in, act)
	e.Action, e.Node, e.Task = string(act.Kind), string(act.Node), string(act.Task)
	if act.Question != nil {
		e.Asked = &store.QuestionRef{ID: string(act.Question.ID), Seq: act.Question.Seq}
	}
	if act.Server != nil {
		e.Work = string(act.Server.Kind)
	}
	e.Data = map[string]any{"fired": fired}
	return e
}

// refusedEvent is the event logged when the machine refused an input: the input, and why.
func refusedEvent(open *elicitation.Question, in statemachine.Input, err error) store.Event {
	e := inputEvent(open, in)
	e.Kind, e.Summary, e.Error = store.EventError, text.Error(err), text.Error(err)
	return e
}

// WorkEvent is the event logged for the server's GitHub work: what it was (req), and how it went
// (in, the machine's next input).
func WorkEvent(req statemachine.ServerRequest, in statemachine.Input) store.Event {
	e := store.Event{Kind: store.EventGitHub, Summary: req.Describe, Outcome: inputOutcome(req.Kind, in)}
	if in.Outcome != nil {
		e.Data = in.Outcome
	}
	return e
}

// inputEvent holds what an input is, in the machine's names.
func inputEvent(open *elicitation.Question, in statemachine.Input) store.Event {
	e := store.Event{Input: string(in.Kind), AgentEvent: string(in.Event), Choice: string(in.Choice)}
	switch {
	case in.Kind == statemachine.InputPoll && in.Facts != nil:
		e.Attention = string(in.Facts.Attention.Kind)
	case in.Kind == statemachine.InputOutcome, in.Kind == statemachine.InputHead:
		e.Outcome = inputOutcome(statemachine.ServerFetchHead, in)
	}
	if isAnswer(in) && (open != nil || in.QuestionSeq > 0) {
		q := &store.QuestionRef{Seq: in.QuestionSeq}
		if open != nil && (q.Seq == 0 || q.Seq == open.Seq) {
			q.ID, q.Seq = string(open.ID), open.Seq
		}
		e.Answered = q
	}
	return e
}

// isAnswer reports whether in answers a question: a choice, a declined or dismissed form, words
// of the user's own.
func isAnswer(in statemachine.Input) bool {
	switch in.Kind {
	case statemachine.InputDecline, statemachine.InputCancel, statemachine.InputFreeform:
		return true
	}
	return in.Kind == statemachine.InputEvent && in.Event == statemachine.EventUserChose
}

// inputOutcome is how the GitHub work an input reports went: an outcome says its own kind; a
// re-read head is work of kind head.
func inputOutcome(head statemachine.ServerActionKind, in statemachine.Input) *store.WorkOutcome {
	switch {
	case in.Outcome != nil:
		return &store.WorkOutcome{Work: string(in.Outcome.Kind), OK: in.Outcome.OK, Error: in.Outcome.Error}
	case in.Head != nil:
		return &store.WorkOutcome{Work: string(head), OK: in.Head.OK, Error: in.Head.Error}
	}
	return nil
}

func logKind(in statemachine.Input) store.EventKind {
	switch in.Kind {
	case statemachine.InputPoll:
		return store.EventPoll
	case statemachine.InputOutcome, statemachine.InputHead:
		return store.EventGitHub
	case statemachine.InputEvent:
		if in.Event == statemachine.EventUserChose {
			return store.EventAnswer
		}
		return store.EventAgent
	case statemachine.InputDecline, statemachine.InputCancel, statemachine.InputFreeform:
		return store.EventAnswer
	}
	return store.EventLifecycle
}

// describeStep tells a step in a line, with the machine's own names, for a person reading the log.
func describeStep(in statemachine.Input, act statemachine.Action) string {
	what := string(in.Kind)
	switch in.Kind {
	case statemachine.InputEvent:
		what = string(in.Event)
		if in.Choice != "" {
			what += " " + string(in.Choice)
		}
	case statemachine.InputPoll:
		what = "poll: " + string(in.Facts.Attention.Kind)
	case statemachine.InputOutcome:
		what = string(in.Outcome.Kind)
		if !in.Outcome.OK {
			what += " failed: " + in.Outcome.Error
		}
	}
	return what + " → " + string(act.Kind) + " at " + string(act.Node)
}
