package mcpserver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What the agent reads of a next_step call: where the driver stopped, as the tool result, and
// what the server adds to an action (a snoozed question's wait, the monitor's one line).

// render turns an outcome that answers the call into its result, and records what reached the
// agent. viaAll: monitor_id=all handed it out, so it names its pull request and the call to make
// next goes on with all.
func (s *Server) render(m *monitor.Monitor, o driver.Outcome, viaAll bool) *mcp.CallToolResult {
	switch {
	case o.Kind == driver.Failed:
		return contract.ToolError(o.Err)
	case o.Request != nil:
		return o.Request
	}
	out := o.Out
	if viaAll {
		out = contract.ViaAll(out)
	}
	m.HandedOut(out)
	s.push.handedOut(m) // the agent has it: not pushed
	if out.Action == string(statemachine.ActionAskUser) {
		s.notices.asked(m, out.Question, false) // the agent asks: the user may be away
	}
	return contract.Result(out)
}

// annotateSnooze completes a polling output that stands for a snoozed question.
func (s *Server) annotateSnooze(out *contract.ActionOutput, act statemachine.Action) {
	if act.SnoozedUntil.IsZero() {
		return
	}
	out.SnoozedUntil = s.stamp(act.SnoozedUntil)
	out.Message = fmt.Sprintf("The user snoozed the question: snoozed until %s, or until something new happens on the pull request. "+
		"Don't ask it meanwhile; call pr_monitor_next_step with event=ready to keep looping.", s.localTime(act.SnoozedUntil))
}

// summary is a monitor's one line, from what its last poll saw.
func (s *Server) summary(m *monitor.Monitor) string {
	f, _ := m.LastFacts()
	return summarize(m.Ref.String(), f)
}

// summarize renders a PR's state in one line (prstatus.SummaryLine, which the team deployment's
// workflow shows too).
func summarize(ref string, f *prstatus.Facts) string { return prstatus.SummaryLine(ref, f) }
