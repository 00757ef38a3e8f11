package contract

import (
	"fmt"
	"sync"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Consent (docs/security.md, "Consent"): a choice that merges (merge, merge with administrator
// bypass, auto-merge, a merge-queue entry, trying a failed merge again) is taken only from the
// user. The machine refuses it from anyone else (statemachine.AnsweredBy); this file says whose an
// answer is, from the way it reached a front end, in one rule for both:
//
//   - the user's pick in a form a host showed them, or their own words there matched whole: the
//     user's (ByUser);
//   - the agent's user_chose for a question that went to a host of the user and that host could
//     not show (it refused or failed the form; on stdio also a host that shows no forms at all, or
//     a task that cannot ask): the user's answer, relayed (Relays.AgentAnswer);
//   - the agent's user_chose for anything else (a question a host shows or can show, one the user
//     dismissed, one another process or another run handed out, one nobody put to a host), and a
//     model's reading of the user's free text: nobody's consent.
//
// What a session says about itself never decides it: over HTTP any holder of the user's token
// opens a session and declares what it likes, so only a form actually put to a host and refused or
// failed there makes a question relayable. On stdio the one connection is the host the user
// started the server from: what it declared at initialize is the host's own word.

// QuestionKey names one question uniquely across runs: its monitor, the run that asked it (a new
// run numbers its questions from 1 again) and its seq in that run.
type QuestionKey struct {
	Monitor string
	// Run names the monitor's run: the workflow's first run id (the same across continue-as-new).
	// The stdio server keeps a record per monitor, which is one run, and leaves it empty.
	Run string
	Seq int
}

// NotShown is why a question went to the agent rather than into a host's form.
type NotShown int

const (
	// FormFailed: a form was put to a host that declared forms, and it refused or failed it.
	FormFailed NotShown = iota + 1
	// NoForms: the client declared no form elicitation.
	NoForms
	// TaskCannotAsk: the call runs as a task that has no way to ask the client.
	TaskCannotAsk
	// Dismissed: the user dismissed the form; what merges waits for their own pick.
	Dismissed
)

// Policy is how a front end takes the agent's relays.
type Policy struct {
	// ConnectionIsHost: the front end's one connection is the host the user runs (stdio), so what
	// it declared (no forms, a task that cannot ask) is the host's word. Off over HTTP.
	ConnectionIsHost bool
	// NoRelayedMerge: no choice that merges is ever taken from the agent, relay or not; only the
	// user's own pick in a form merges (serve --http --no-relayed-merge).
	NoRelayedMerge bool
}

// maxRelays bounds the questions remembered; forgetting one only means asking in a form again.
const maxRelays = 10_000

// Relays remembers the questions handed to the agent because a host of the user could not show
// them: the agent's answer to one of those is the user's, relayed. It is safe for concurrent use.
type Relays struct {
	policy Policy
	mu     sync.Mutex
	handed map[QuestionKey]struct{}
}

// NewRelays is an empty record under p.
func NewRelays(p Policy) *Relays { return &Relays{policy: p, handed: map[QuestionKey]struct{}{}} }

// Counts reports whether a question handed to the agent for why makes the agent's answer to it
// the user's, relayed.
func (r *Relays) Counts(why NotShown) bool {
	switch {
	case r.policy.NoRelayedMerge:
		return false
	case why == FormFailed:
		return true
	case why == NoForms, why == TaskCannotAsk:
		return r.policy.ConnectionIsHost
	}
	return false
}

// Handed records that question k went to the agent because of why; it reports whether the agent's
// answer to it will be taken as the user's (Counts).
func (r *Relays) Handed(k QuestionKey, why NotShown) bool {
	if !r.Counts(why) {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.handed) >= maxRelays {
		clear(r.handed)
	}
	r.handed[k] = struct{}{}
	return true
}

// Shown records that a form of question k reached a host: an earlier relay of it no longer stands.
func (r *Relays) Shown(k QuestionKey) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.handed, k)
}

// Relayed reports whether question k went to the agent because a host could not show it.
func (r *Relays) Relayed(k QuestionKey) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.handed[k]
	return ok
}

// AgentAnswer marks the agent's own user_chose for question k: the user's answer, relayed, when k
// is one a host could not show (Relayed), or when the host shows no forms at all and the policy
// takes the connection's word for it (ConnectionIsHost: a stdio host without forms, whose every
// question is the agent's to relay, before a restart too); else the agent's, which may choose
// anything but a merge. Any other input is returned as it is.
func (r *Relays) AgentAnswer(in statemachine.Input, k QuestionKey, hostShowsNoForms bool) statemachine.Input {
	if in.Kind != statemachine.InputEvent || in.Event != statemachine.EventUserChose {
		return in
	}
	if r.Relayed(k) || (hostShowsNoForms && r.Counts(NoForms)) {
		return in.From(statemachine.ByRelay)
	}
	return in.From("")
}

// OpenQuestionSeq is the seq of the question an answer goes to: the open one, or the one a
// free-text answer interrupted (its interpretation is the agent's task).
func OpenQuestionSeq(p statemachine.Position) int {
	switch {
	case p.Question != nil:
		return p.Question.Seq
	case p.Freeform != nil:
		return p.Freeform.Question.Seq
	}
	return 0
}

// MergingChoices lists the choices of question q (the one open at p) that only the user's own
// answer can make.
func MergingChoices(p statemachine.Position, q *elicitation.Question) []elicitation.Value {
	var out []elicitation.Value
	for _, c := range q.Choices {
		if p.NeedsUser(c.Value) {
			out = append(out, c.Value)
		}
	}
	return out
}

// AskAgentMessage is what an ask_user says when a question goes to the agent: own (the action's
// own message), else why; and, when the agent's answer will not be the user's relayed (relayed
// false), which choices (merging) only the user's own pick in a form can make.
func AskAgentMessage(own string, why NotShown, relayed bool, merging []elicitation.Value) string {
	msg := own
	switch {
	case msg != "":
	case why == FormFailed:
		msg = "The host could not show this question to the user (it refused or failed the prompt): ask the user and answer with user_chose."
	default:
		msg = "Ask the user this question and answer with user_chose."
	}
	if relayed || len(merging) == 0 {
		return msg
	}
	if why == Dismissed {
		return msg + fmt.Sprintf(" The user dismissed the host's prompt: %v only their own pick there can choose; "+
			"call pr_monitor_next_step with event=ready to show it again. The other choices you may relay with user_chose.", merging)
	}
	return msg + fmt.Sprintf(" %v only the user's own pick in a form their host shows can choose: "+
		"call pr_monitor_next_step with event=ready from a host that shows forms to put it to them. The other choices you may relay with user_chose.", merging)
}

// Refusal is the tool error for a choice that merges the machine refused because it was not the
// user's (statemachine.ErrNotTheUsersChoice), cause its words: nothing happened, and how the
// user gets to choose. interpreting: the agent was reading the user's free text.
func Refusal(cause string, interpreting bool) string {
	if interpreting {
		return fmt.Sprintf("refused, nothing changed: a choice that merges is taken only from the user's own pick in the host's prompt, "+
			"not from your reading of their words (%s). Send task_complete and the question goes back to them", cause)
	}
	return fmt.Sprintf("refused, nothing changed: a choice that merges is taken only from the user's own answer in a form their host shows, "+
		"or relayed by you for a question their host could not show (%s). Call pr_monitor_next_step with event=ready "+
		"to show it to them again; choices that do not merge you may relay with user_chose", cause)
}
