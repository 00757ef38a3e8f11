package mcpserver

import (
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Quiet hours and snoozed questions: what the user expects is "don't bother me". During quiet
// hours (Config.Quiet) no question reaches the user: none is elicited and none is handed to the
// agent to ask. The call holds the question until quiet ends or its deadline comes, then answers
// polling with quiet_until; the agent keeps looping. Agent work that needs no one (a task, the
// server's own GitHub work, watching) goes on as usual. A snoozed question (the user chose "Ask
// me again in 1 hour") waits the same way; the machine decides when it ends (see
// statemachine.Snooze) and says so with SnoozedUntil.

// quietUntil is when the quiet hours around now end; zero when now is not quiet.
func (s *Server) quietUntil() time.Time { return s.cfg.Quiet.Until(s.cfg.Now()) }

// localTime renders t for the user in the quiet hours' zone (local time unless --quiet-tz): the
// clock time alone today, with the day otherwise.
func (s *Server) localTime(t time.Time) string {
	loc := s.cfg.Quiet.Location()
	t = t.In(loc)
	if t.Format(time.DateOnly) == s.cfg.Now().In(loc).Format(time.DateOnly) {
		return t.Format("15:04 MST")
	}
	return t.Format("Mon 2 Jan 15:04 MST")
}

// stamp renders t for a structured field: RFC 3339 in the quiet hours' zone; "" for zero.
func (s *Server) stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.In(s.cfg.Quiet.Location()).Format(time.RFC3339)
}

// hushed is a pending action shown outside a driven call (a resumed monitor's): during quiet
// hours its question is left out, and the action says until when it waits.
func (s *Server) hushed(out contract.ActionOutput) contract.ActionOutput {
	until := s.quietUntil()
	if until.IsZero() || out.Action != string(statemachine.ActionAskUser) {
		return out
	}
	out.Action, out.Question, out.QuietUntil = string(statemachine.ActionPolling), nil, s.stamp(until)
	out.Message = fmt.Sprintf("Quiet hours: quiet until %s. A question is waiting and will be asked then.", s.localTime(until))
	return out
}

// snoozedUntil is when the snooze on pos's open question ends; zero when none is in force.
func (s *Server) snoozedUntil(pos statemachine.Position) time.Time {
	z, q := pos.Snooze, pos.Question
	if z == nil || q == nil || z.Seq != q.Seq || pos.Node.State() != statemachine.StateAwaitingUser || !s.cfg.Now().Before(z.Until) {
		return time.Time{}
	}
	return z.Until
}

// withQuiet adds the snooze of a monitor's position to its status.
func (s *Server) withQuiet(st contract.MonitorStatus, pos statemachine.Position) contract.MonitorStatus {
	st.SnoozedUntil = s.stamp(s.snoozedUntil(pos))
	return st
}
