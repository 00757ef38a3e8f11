package monitorwf

import (
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// WaitingOn says who must act next.
type WaitingOn string

// Who a monitor waits on.
const (
	WaitingOnGitHub WaitingOn = "github" // watching for a change, or doing GitHub work
	WaitingOnAgent  WaitingOn = "agent"  // a task is out
	WaitingOnUser   WaitingOn = "user"   // a question is open
	WaitingOnNobody WaitingOn = "nobody" // stopped or merged
)

// Status is the QueryStatus answer: what the monitor is doing, read without touching its history.
// Text from GitHub in it (the pull request's title, the question's context) is the machine's
// Untrusted kind, fenced wherever it is shown.
type Status struct {
	MonitorID string `json:"monitor_id"`
	// Run names the monitor's run (Reply.Run).
	Run string `json:"run,omitempty"`
	PR  string `json:"pr"`
	// Owner is the owner's key (Owner.Key: "id:N", or a login for a monitor started before
	// owners had ids); OwnerLogin the owner's login when the monitor started or was adopted.
	Owner      string `json:"owner,omitempty"`
	OwnerLogin string `json:"owner_login,omitempty"`
	// Author is the pull request's author's login, as the last read saw it.
	Author string `json:"author,omitempty"`
	// AuthorAssociation is the author's relation to the repository, as the last read saw it:
	// OWNER, MEMBER and COLLABORATOR have write access.
	AuthorAssociation prstatus.Association   `json:"author_association,omitempty"`
	Title             statemachine.Untrusted `json:"title,omitempty"`
	URL               string                 `json:"url,omitempty"`
	State             statemachine.State     `json:"state"`
	Node              statemachine.Node      `json:"node"`
	Flow              statemachine.Flow      `json:"flow,omitempty"`
	WaitingOn         WaitingOn              `json:"waiting_on"`
	// Attention is what the last read found the pull request needs, in words; Summary the
	// pull request in one line (prstatus.SummaryLine).
	Attention string                `json:"attention,omitempty"`
	Summary   string                `json:"summary,omitempty"`
	Question  *elicitation.Question `json:"question,omitempty"`
	Task      statemachine.TaskName `json:"task,omitempty"`
	// Handed: the task in progress was handed to the agent by a next_step of this run (a front
	// end serving many monitors at once puts the others first).
	Handed bool `json:"handed,omitempty"`
	// CallsWaiting counts the agent's next_step calls waiting now in this monitor for something
	// for the agent (a task, a question, the end): news reaches them as it lands.
	CallsWaiting int       `json:"calls_waiting,omitempty"`
	LastEvent    Event     `json:"last_event"`
	LastRead     time.Time `json:"last_read,omitzero"`
	// NextReconcile is when the durable timer reads the pull request anyway.
	NextReconcile time.Time `json:"next_reconcile,omitzero"`
	// ChangesSeen counts change signals in this run; Runs the continuations so far.
	ChangesSeen int    `json:"changes_seen"`
	Runs        int    `json:"runs"`
	LastError   string `json:"last_error,omitempty"`
	// RateLimit is GitHub's hourly GraphQL budget of the worker's token as the last read saw it.
	RateLimit *prstatus.RateLimit `json:"rate_limit,omitempty"`
}

func (w *monitor) status() Status {
	pos := w.m.Position()
	st := Status{MonitorID: w.id, Run: w.firstRun, PR: w.p.Ref.String(), Owner: w.p.Owner, OwnerLogin: w.p.OwnerLogin, Summary: prstatus.SummaryLine(w.p.Ref.String(), w.facts), Title: statemachine.Untrusted(pos.Monitor.Title), URL: pos.Monitor.URL,
		State: pos.Node.State(), Node: pos.Node, Flow: pos.Node.Flow(), Question: pos.Question,
		LastEvent: w.lastEvent, LastRead: w.lastRead, NextReconcile: w.reconcileAt, ChangesSeen: w.changes,
		Runs: w.runs, LastError: w.lastError, CallsWaiting: w.callsWaiting}
	if pos.Task != nil {
		st.Task = pos.Task.Name
		st.Handed = w.act.Kind == statemachine.ActionExecute && taskID(pos) == w.handed
	}
	if w.facts != nil {
		st.Attention = w.facts.Attention.Kind.Words()
		st.Author, st.AuthorAssociation = w.facts.Author, w.facts.AuthorAssociation
		if rl := w.facts.RateLimit; rl.Limit > 0 {
			st.RateLimit = &rl
		}
	}
	st.WaitingOn = waitingOnOf(w.act)
	if w.busy && !w.ended() {
		st.WaitingOn = WaitingOnGitHub
	}
	return st
}
