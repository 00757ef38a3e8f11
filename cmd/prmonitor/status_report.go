package main

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/statemachine"
)

// statusSchema is the version of `prmonitor status --json`. Fields may be added; a field renamed,
// removed or changed in meaning bumps it. docs/status.md documents every field.
const statusSchema = 1

// statusReport is what `prmonitor status` shows: the saved monitors, records it could not read,
// and what each watcher spends of its token's points.
type statusReport struct {
	Schema   int       `json:"schema"`
	StateDir string    `json:"state_dir"`
	At       time.Time `json:"at"`
	// Monitors come in the order a person should look at them: asking you first, then waiting on
	// the agent, on GitHub work, watching, and ended; the longest waiting first within each.
	Monitors   []statusMonitor    `json:"monitors"`
	Unreadable []statusUnreadable `json:"unreadable"`
	Budgets    []statusBudget     `json:"budgets"`
	// Servers are the prmonitor processes running here on this directory: those that marked it,
	// and those that hold its monitors.
	Servers []statusServer `json:"servers"`
}

// statusServer is one running server: its process id, how many monitors it holds, and what its
// marker says of it (nothing for a server seen only through its monitors).
type statusServer struct {
	PID       int       `json:"pid"`
	Monitors  int       `json:"monitors"`
	StartedAt time.Time `json:"started_at,omitzero"`
	Version   string    `json:"version,omitempty"`
	API       string    `json:"api,omitempty"`
}

// The phases of a monitor, in the order status lists them.
const (
	phaseAsking   = "asking"   // a question waits for the user
	phaseAgent    = "agent"    // a task waits for the agent
	phaseGitHub   = "github"   // the server is doing GitHub work
	phaseWatching = "watching" // watching GitHub for something to do
	phaseEnded    = "ended"    // merged, closed or stopped
)

var phaseOrder = []string{phaseAsking, phaseAgent, phaseGitHub, phaseWatching, phaseEnded}

type statusMonitor struct {
	MonitorID string `json:"monitor_id"`
	PR        string `json:"pr"`
	Title     string `json:"title,omitempty"`
	URL       string `json:"url,omitempty"`
	API       string `json:"api"`
	Phase     string `json:"phase"`
	Node      string `json:"node"`
	// State is the node in words.
	State string `json:"state"`
	// WaitingFor is what the monitor waits for, in words.
	WaitingFor   string          `json:"waiting_for"`
	WaitingSince time.Time       `json:"waiting_since"`
	Question     *statusQuestion `json:"question"`
	Task         *statusTask     `json:"task"`
	Ended        bool            `json:"ended"`
	EndedReason  string          `json:"ended_reason,omitempty"`
	CreatedAt    time.Time       `json:"created_at"`
	UpdatedAt    time.Time       `json:"updated_at"`
	LastEvent    *statusEvent    `json:"last_event"`
	// ServerPID is the running prmonitor that holds the monitor, 0 when none does: the monitor
	// waits where it is until an agent starts it again.
	ServerPID int `json:"server_pid"`
}

// serverless tells whether the monitor should be running and no server runs it.
func (m statusMonitor) serverless() bool { return !m.Ended && m.ServerPID == 0 }

type statusQuestion struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// lines are the question's lines, and choices its choices' labels, each cleaned for a
	// terminal, for the live view's details.
	lines, choices []string
}

type statusTask struct {
	Name      string    `json:"name"`
	Words     string    `json:"words"`
	StartedAt time.Time `json:"started_at,omitzero"`
}

type statusEvent struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	// Summary is the event in words.
	Summary string `json:"summary"`
}

type statusUnreadable struct {
	File    string `json:"file"`
	Problem string `json:"problem"`
}

type statusBudget struct {
	API string `json:"api"`
	// Budget is the share of the token's hourly points the watcher may spend (0.25 = 25 %).
	Budget       float64    `json:"budget"`
	WindowStart  time.Time  `json:"window_start"`
	Points       int        `json:"points"`
	Requests     int        `json:"requests"`
	Limit        int        `json:"limit"`
	Remaining    int        `json:"remaining"`
	ResetAt      time.Time  `json:"reset_at"`
	CycleSeconds float64    `json:"cycle_seconds"`
	PRs          int        `json:"prs"`
	QuietUntil   *time.Time `json:"quiet_until"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// statusEvents is how many of each monitor's newest events status reads: enough to find when
// the monitor reached its node, and the last few for the live view.
const statusEvents = 50

// emptyStatus is the report of a directory that holds nothing (or does not exist yet).
func emptyStatus(dir string, now time.Time) statusReport {
	return statusReport{
		Schema: statusSchema, StateDir: dir, At: now,
		Monitors: []statusMonitor{}, Unreadable: []statusUnreadable{}, Budgets: []statusBudget{}, Servers: []statusServer{},
	}
}

// buildStatus makes the report from what the state directory holds. spendErr is a spend file
// that could not be read: reported with the unreadable records, not a failure. holder is the
// running process that holds a monitor's files (by name), 0 for none; marked are the running
// servers that marked the directory.
func buildStatus(dir string, saved []store.Saved, spend map[string]store.Spend, spendErr error, now time.Time, holder func(name string) int,
	marked []store.Server) statusReport {
	r := emptyStatus(dir, now)
	held := map[int]int{}
	for _, s := range saved {
		if s.Problem != "" {
			r.Unreadable = append(r.Unreadable, statusUnreadable{File: s.Name + ".json", Problem: sanitize.Line(s.Problem)})
			continue
		}
		m := describeMonitor(s)
		if m.ServerPID = holder(s.Name); m.ServerPID > 0 {
			held[m.ServerPID]++
		}
		r.Monitors = append(r.Monitors, m)
	}
	r.Servers = statusServers(marked, held)
	// Ended monitors last; before them, those no server runs (nothing happens to them until an
	// agent starts them again); first, by phase, what a running server waits on.
	rank := func(m statusMonitor) int {
		switch {
		case m.Ended:
			return 2
		case m.serverless():
			return 1
		}
		return 0
	}
	slices.SortStableFunc(r.Monitors, func(a, b statusMonitor) int {
		return cmp.Or(
			cmp.Compare(rank(a), rank(b)),
			cmp.Compare(slices.Index(phaseOrder, a.Phase), slices.Index(phaseOrder, b.Phase)),
			a.WaitingSince.Compare(b.WaitingSince),
			strings.Compare(a.MonitorID, b.MonitorID),
		)
	})
	if spendErr != nil {
		r.Unreadable = append(r.Unreadable, statusUnreadable{File: "spend.json", Problem: sanitize.Line(spendErr.Error())})
	}
	for api, sp := range spend {
		b := statusBudget{
			API: api, Budget: sp.Budget, WindowStart: sp.WindowStart, Points: sp.Points, Requests: sp.Requests,
			Limit: sp.Limit, Remaining: sp.Remaining, ResetAt: sp.ResetAt, CycleSeconds: sp.Cycle.Seconds(),
			PRs: sp.PRs, UpdatedAt: sp.UpdatedAt,
		}
		if !sp.QuietUntil.IsZero() {
			q := sp.QuietUntil
			b.QuietUntil = &q
		}
		r.Budgets = append(r.Budgets, b)
	}
	slices.SortFunc(r.Budgets, func(a, b statusBudget) int { return strings.Compare(a.API, b.API) })
	return r
}

// describeMonitor tells one saved monitor in words. Text that can come from GitHub (the title, a
// question naming a file or a reviewer, an error) passes through oneLine.
func describeMonitor(s store.Saved) statusMonitor {
	rec, pos, events := s.Record, s.Record.Position, typedEvents(s.Events)
	m := statusMonitor{
		MonitorID: rec.MonitorID, PR: rec.Ref.String(), Title: sanitize.Line(pos.Monitor.Title), URL: sanitize.Line(pos.Monitor.URL),
		API: rec.API, Node: string(pos.Node), State: describeNode(pos.Node),
		Ended: rec.Stopped || pos.Node == statemachine.NodeStopped, EndedReason: sanitize.Line(rec.StoppedReason),
		CreatedAt: rec.CreatedAt, UpdatedAt: rec.UpdatedAt,
	}
	if pos.Question != nil {
		m.Question = &statusQuestion{ID: string(pos.Question.ID), Text: sanitize.Line(pos.Question.Text)}
		for l := range strings.Lines(pos.Question.Text) {
			if l = sanitize.Line(l); l != "" {
				m.Question.lines = append(m.Question.lines, l)
			}
		}
		for _, c := range pos.Question.Choices {
			m.Question.choices = append(m.Question.choices, sanitize.Line(c.Label))
		}
	}
	if pos.Task != nil {
		m.Task = &statusTask{Name: string(pos.Task.Name), Words: pos.Task.Name.Words(), StartedAt: pos.Task.StartedAt}
	}
	if n := len(events); n > 0 {
		e := toldEvent(events[n-1])
		m.LastEvent = &e
	}
	m.Phase, m.WaitingFor = waitingFor(m, pos, events)
	m.WaitingSince = waitingSince(pos, rec.UpdatedAt, events)
	if m.Ended {
		m.State = describeNode(statemachine.NodeStopped)
	}
	return m
}

// waitingFor is the monitor's phase and what it waits for, in words.
func waitingFor(m statusMonitor, pos statemachine.Position, events []store.Event) (phase, words string) {
	switch {
	case m.Ended:
		return phaseEnded, "nothing: " + cmp.Or(m.EndedReason, "stopped")
	case m.Question != nil && pos.Snooze != nil && pos.Question != nil && pos.Snooze.Seq == pos.Question.Seq:
		return phaseAsking, "your answer (snoozed until " + pos.Snooze.Until.Local().Format("Jan 2 15:04") + "): " + m.Question.Text
	case m.Question != nil:
		return phaseAsking, "your answer: " + m.Question.Text
	case m.Task != nil:
		return phaseAgent, "the agent to finish " + m.Task.Words
	case pos.Server != nil:
		return phaseGitHub, "GitHub: " + describeServer(pos.Server.Kind)
	case pos.Node == statemachine.NodeIdle:
		return phaseWatching, "the agent's first call"
	case pos.Node == statemachine.NodeCIRerunDeferred:
		return phaseWatching, "running checks to finish before the re-run"
	}
	if pos.Node.State() == statemachine.StateExecutingTask {
		return phaseGitHub, "the server"
	}
	for _, e := range slices.Backward(events) {
		if e.Input != string(statemachine.InputPoll) {
			continue
		}
		if prstatus.AttentionKind(e.Attention) == prstatus.AttentionCIPending {
			return phaseWatching, "CI to finish"
		}
		break
	}
	return phaseWatching, "reviews, comments or checks"
}

// waitingSince is when the monitor reached its node: the first of the newest run of steps that
// reached that node, else when its task started, else when its record was last saved.
func waitingSince(pos statemachine.Position, updated time.Time, events []store.Event) time.Time {
	var since time.Time
	for _, e := range slices.Backward(events) {
		if statemachine.Node(e.Node) != pos.Node {
			if e.IsStep() {
				break
			}
			continue // an event that names no node (an error, a note) does not move the monitor
		}
		since = e.At
	}
	switch {
	case !since.IsZero():
		return since
	case pos.Task != nil && !pos.Task.StartedAt.IsZero():
		return pos.Task.StartedAt
	}
	return updated
}

// toldEvent is an event as status shows it: when, its kind, and what happened in words.
func toldEvent(e store.Event) statusEvent {
	return statusEvent{At: e.At, Kind: string(e.Kind), Summary: describeEvent(e)}
}
