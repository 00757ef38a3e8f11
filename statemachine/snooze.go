package statemachine

import (
	"fmt"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// SnoozeFor is how long "Ask me again in 1 hour" puts a question off.
const SnoozeFor = time.Hour

// Snooze is a question the user put off: until Until it is not asked (the monitor answers
// polling), unless GitHub shows something new on the pull request first. It is part of the
// position, so a restarted server keeps it.
type Snooze struct {
	// Seq is the snoozed question's; a snooze never covers another question.
	Seq   int       `json:"seq"`
	Until time.Time `json:"until"`
	// Head is the head when the user snoozed; Seen the pull request's top attention at the first
	// poll after it. A new head, a different top attention or a merged or closed pull request
	// ends the snooze early: the question comes back with the news.
	Head string `json:"head,omitempty"`
	Seen string `json:"seen,omitempty"`
}

// snoozeRows are the snooze rows of one flow: every question node of it loops back to itself on
// the snooze choice. The question stays open and its context stays whole; only asking waits.
func snoozeRows(f Flow) []Row {
	var rows []Row
	for _, n := range nodeOrder {
		if info := nodes[n]; info.state == StateAwaitingUser && info.flow == f {
			rows = append(rows, Row{snoozeRow(n), at(n), n, when(onChoice(elicitation.Snooze)), none()})
		}
	}
	return rows
}

// snoozeRow names the snooze row of question node n.
func snoozeRow(n Node) Transition { return Transition("snooze_" + string(n)) }

// snooze puts the open question off for SnoozeFor. It is not the answer: Answered keeps the last
// real answer, so snoozing the same question again later snoozes again.
func (s *step) snooze(prev *Answered) (Action, error) {
	if err := s.fire(snoozeRow(s.pos.Node)); err != nil {
		return Action{}, err
	}
	s.pos.Answered = prev
	s.pos.Snooze = &Snooze{Seq: s.pos.Question.Seq, Until: s.now.Add(SnoozeFor), Head: s.pos.Head}
	return s.pending(""), nil
}

// snoozed is the snooze in force on the open question, or nil. A reading without a clock (Pending)
// takes a snooze on the open question as in force.
func (s *step) snoozed() *Snooze {
	z, q := s.pos.Snooze, s.pos.Question
	if z == nil || q == nil || s.pos.Node.State() != StateAwaitingUser || z.Seq != q.Seq {
		return nil
	}
	if !s.now.IsZero() && !s.now.Before(z.Until) {
		return nil
	}
	return z
}

// dropStaleSnooze forgets a snooze that ended or no longer covers the open question.
func (s *step) dropStaleSnooze() {
	if s.pos.Snooze != nil && !s.now.IsZero() && s.snoozed() == nil {
		s.pos.Snooze = nil
	}
}

// snoozedAction is what a snoozed question answers in its place: keep polling until Until.
func (s *step) snoozedAction(z *Snooze, msg string) Action {
	if msg == "" {
		msg = fmt.Sprintf("Question %d is snoozed; it comes back at %s, or sooner if the pull request changes.",
			z.Seq, z.Until.UTC().Format("15:04 UTC"))
	}
	return Action{Kind: ActionPolling, Message: msg, SnoozedUntil: z.Until}
}

// wakeOnNews ends the snooze when a poll shows something new on the pull request since the user
// put the question off: a new head, a different top attention, or the pull request merged or
// closed. The first poll after the snooze records what it sees.
func (s *step) wakeOnNews(f *prstatus.Facts) string {
	z := s.snoozed()
	if z == nil {
		return ""
	}
	seen := string(f.Attention.Kind) + ":" + f.Attention.Key
	var why string
	switch {
	case f.State == prstatus.StateMerged || f.State == prstatus.StateClosed:
		why = "the pull request was " + strings.ToLower(string(f.State))
	case z.Head != "" && f.HeadSHA != "" && f.HeadSHA != z.Head:
		why = "new commits were pushed"
	case z.Seen != "" && seen != z.Seen:
		why = "the pull request changed (" + string(f.Attention.Kind) + ")"
	}
	if why == "" {
		z.Seen = seen
		return ""
	}
	s.pos.Snooze = nil
	return fmt.Sprintf("The snoozed question is back early: %s.", why)
}
