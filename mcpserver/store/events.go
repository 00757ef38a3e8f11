package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// EventKind says what an event is about.
type EventKind string

// The kinds of event the server logs.
const (
	EventPoll      EventKind = "poll"      // a poll of GitHub and what it found
	EventAction    EventKind = "action"    // an action handed to the agent
	EventAnswer    EventKind = "answer"    // the agent's or the user's answer
	EventAgent     EventKind = "event"     // the agent's report: ready, a task done
	EventGitHub    EventKind = "github"    // a server-side change on GitHub (reply, resolve, merge)
	EventError     EventKind = "error"     // something failed
	EventLifecycle EventKind = "lifecycle" // started, resumed, stopped, record set aside
)

// Event is one line of a monitor's event log. Summary tells it in a sentence for a person reading
// the log; the typed fields below say what it is about in the state machine's own names
// (package statemachine), for a reader such as `prmonitor status` to tell without reading the
// summary. Each is set where it applies and absent elsewhere (and in logs written before they
// existed). Data is any JSON-marshalable value. Events are written as given: never put a secret
// in one. (A ghclient.Token marshals as "[REDACTED]", so a token that slips in by mistake still
// does not leak.)
//
// A step of the machine carries its input (Input, and AgentEvent, Choice, Answered, Attention or
// Outcome as the input has them) and where it led (Action, Node, and Task, Asked or Work as the
// action has them); a machine that refused the input logs an error event with the input and
// Error. The server's GitHub work logs a github event with its Outcome.
type Event struct {
	// At is when it happened; Append fills in a zero At.
	At      time.Time `json:"at"`
	Kind    EventKind `json:"kind"`
	Summary string    `json:"summary"`

	// Input is the kind of input a step took (statemachine.InputKind: event, poll, outcome,
	// decline, cancel, freeform, head, stop).
	Input string `json:"input,omitempty"`
	// AgentEvent is the agent's event (input event: ready, user_chose, push_completed...), Choice
	// the choice's value with user_chose.
	AgentEvent string `json:"event,omitempty"`
	Choice     string `json:"choice,omitempty"`
	// Answered is the question an answer (user_chose, decline, cancel, freeform) was given to.
	Answered *QuestionRef `json:"answered,omitempty"`
	// Attention is what a poll found first (prstatus.AttentionKind).
	Attention string `json:"attention,omitempty"`
	// Outcome is how the server's GitHub work went: the outcome a step took, or the work a github
	// event records.
	Outcome *WorkOutcome `json:"outcome,omitempty"`
	// Error is, in one line, why the machine refused an input (an error event).
	Error string `json:"error,omitempty"`

	// Action is the kind of action the step led to (statemachine.ActionKind), Node the node it
	// reached (statemachine.Node).
	Action string `json:"action,omitempty"`
	Node   string `json:"node,omitempty"`
	// Task is the task the action hands the agent (execute), Asked the question it asks
	// (ask_user), Work the GitHub work it asks of the server (statemachine.ServerActionKind).
	Task  string       `json:"task,omitempty"`
	Asked *QuestionRef `json:"asked,omitempty"`
	Work  string       `json:"work,omitempty"`

	Data any `json:"data,omitempty"`
}

// QuestionRef names one question a monitor asked: its kind (elicitation.QuestionID) and its
// sequence number within the monitor. ID is empty when an answer named a question that is no
// longer open.
type QuestionRef struct {
	ID  string `json:"id,omitempty"`
	Seq int    `json:"seq,omitempty"`
}

// WorkOutcome is how one piece of the server's GitHub work went: its kind
// (statemachine.ServerActionKind), whether it was done, and if not why, in one line.
type WorkOutcome struct {
	Work  string `json:"work"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// IsStep reports whether the event records a step of the machine (it names the node reached).
func (e Event) IsStep() bool { return e.Node != "" }

// maxEventBytes bounds one line of the log; an event whose data would make it longer is logged
// without its data.
const maxEventBytes = 1 << 20

// maxSummaryBytes bounds the summary of an event whose data was dropped for size.
const maxSummaryBytes = 4 << 10

// Append adds an event to the monitor's log, "<name>.events.jsonl": one JSON object a line,
// written in one write to a file opened for appending, under the claim's lock, so lines never
// interleave. It needs the monitor's claim. When the log would pass its size limit it is first
// rotated to "<name>.events.jsonl.1", replacing the previous one.
func (s *Store) Append(id string, e Event) error {
	c, err := s.held(id)
	if err != nil {
		return err
	}
	defer c.mu.Unlock()
	return c.append(e)
}

// append writes one event; c.mu is held.
func (c *Claim) append(e Event) error {
	if e.At.IsZero() {
		e.At = c.s.stamp()
	}
	line, err := encodeEvent(e)
	if err != nil {
		return fmt.Errorf("store: event for monitor %s: %w", c.id, err)
	}
	if err := c.s.appendLine(c.p, line); err != nil {
		return fmt.Errorf("store: event log of monitor %s: %w", c.id, err)
	}
	return nil
}

func encodeEvent(e Event) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	if len(b) >= maxEventBytes {
		e.Data = map[string]string{"omitted": fmt.Sprintf("%d bytes of event, over the %d-byte limit", len(b), maxEventBytes)}
		e.Summary = text.ClipBytes(e.Summary, maxSummaryBytes)
		if b, err = json.Marshal(e); err != nil {
			return nil, err
		}
	}
	return append(b, '\n'), nil
}

func (s *Store) appendLine(p paths, line []byte) error {
	f, err := openFile(p.events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return errors.Join(err, f.Close())
	}
	if info.Size() > 0 && info.Size()+int64(len(line)) > s.eventLimit {
		if err := f.Close(); err != nil {
			return err
		}
		if err := rename(p.events, p.rotated); err != nil {
			return fmt.Errorf("rotate: %w", err)
		}
		if f, err = openFile(p.events, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
			return err
		}
	}
	_, err = f.Write(line)
	return errors.Join(err, f.Close())
}

// Events reads the monitor's event log, the rotated part first, for tests and debugging. It needs
// no claim. Lines that do not parse (the last one, cut short by a crash) are skipped.
func (s *Store) Events(id string) ([]Event, error) {
	if id == "" {
		return nil, errors.New("store: empty monitor id")
	}
	p := s.paths(fileName(id))
	var out []Event
	for _, path := range []string{p.rotated, p.events} {
		data, err := readFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("store: events of monitor %s: %w", id, err)
		}
		skipped := 0
		for line := range bytes.Lines(data) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var e Event
			if err := json.Unmarshal(line, &e); err != nil {
				skipped++
				continue
			}
			out = append(out, e)
		}
		if skipped > 0 {
			s.log.Warn("store: skipped unreadable event log lines", "monitor", id, "file", path, "lines", skipped)
		}
	}
	return out, nil
}
