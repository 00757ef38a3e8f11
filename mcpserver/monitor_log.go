package mcpserver

import (
	"time"

	"github.com/prmonitor/prmonitor/statemachine"
)

// What a monitor writes to its event log, and how it names a task.

// taskID identifies a task in progress: its name and when it began.
func taskID(p statemachine.Position) string {
	if p.Task == nil {
		return ""
	}
	return string(p.Task.Name) + "@" + p.Task.StartedAt.UTC().Format(time.RFC3339Nano)
}

func logKind(in statemachine.Input) string {
	switch in.Kind {
	case statemachine.InputPoll:
		return "poll"
	case statemachine.InputOutcome, statemachine.InputHead:
		return "github"
	case statemachine.InputEvent:
		if in.Event == statemachine.EventUserChose {
			return "answer"
		}
		return "event"
	case statemachine.InputDecline, statemachine.InputCancel, statemachine.InputFreeform:
		return "answer"
	}
	return "lifecycle"
}

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
