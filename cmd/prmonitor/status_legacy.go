package main

import (
	"regexp"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Event logs written before the server logged typed fields (store.Event) told a step only in its
// summary, "<what> → <action> at <node>", with the node again in the event's data. typedEvent
// reads those lines into the same fields, so that everything else in status reads the fields
// alone. This file goes once no state directory holds such a line (an event log rotates at 8 MB).

// legacyStep matches the summary of a step in an old log.
var legacyStep = regexp.MustCompile(`^(.+) → ([a-z_]+) at ([a-z_]+)$`)

// typedEvents are events with their typed fields (typedEvent), in a new slice.
func typedEvents(events []store.Event) []store.Event {
	out := make([]store.Event, len(events))
	for i, e := range events {
		out[i] = typedEvent(e)
	}
	return out
}

// typedEvent is e with its typed fields, read from its summary when an old server wrote none.
func typedEvent(e store.Event) store.Event {
	if e.Input != "" || e.Node != "" || e.Outcome != nil {
		return e
	}
	m := legacyStep.FindStringSubmatch(e.Summary)
	if m == nil {
		return e
	}
	what := m[1]
	e.Action, e.Node = m[2], m[3]
	if data, ok := e.Data.(map[string]any); ok {
		if n, ok := data["node"].(string); ok && n != "" {
			e.Node = n
		}
	}
	head, rest, _ := strings.Cut(what, " ")
	work, failure, failed := strings.Cut(what, " failed: ")
	switch {
	case strings.HasPrefix(what, "poll: "):
		e.Input, e.Attention = string(statemachine.InputPoll), strings.TrimPrefix(what, "poll: ")
	case statemachine.Event(head).Valid():
		e.Input, e.AgentEvent = string(statemachine.InputEvent), head
		if head == string(statemachine.EventUserChose) {
			e.Choice = rest
		}
	case inputWords[statemachine.InputKind(what)] != "":
		e.Input = what
	case serverWords[statemachine.ServerActionKind(work)] != "":
		e.Input = string(statemachine.InputOutcome)
		e.Outcome = &store.WorkOutcome{Work: work, OK: !failed, Error: failure}
	default:
		e.Input = what // an input this build does not know: told as it is
	}
	return e
}
