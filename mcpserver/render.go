package mcpserver

import (
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What the agent reads: a machine action as an contract.ActionOutput, the driver's own answers (the
// deadline, a cancelled call), and the tool result that carries them.

// render turns an outcome that answers the call into its result, and records what reached the
// agent. viaAll: monitor_id=all handed it out, so it names its pull request and the call to make
// next goes on with all.
func (s *Server) render(m *monitor.Monitor, o outcome, viaAll bool) *mcp.CallToolResult {
	switch {
	case o.kind == failed:
		return contract.ToolError(o.err)
	case o.request != nil:
		return o.request
	}
	out := o.out
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

// output turns a machine action into what the agent sees.
func (d *driver) output(act statemachine.Action) contract.ActionOutput {
	out := contract.Output(d.mon.ID, act)
	out.PR = d.mon.Ref.String()
	out.Summary = d.summary()
	d.s.annotateSnooze(&out, act)
	return out
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

func (d *driver) summary() string { return d.s.summary(d.mon) }

// summary is a monitor's one line, from what its last poll saw.
func (s *Server) summary(m *monitor.Monitor) string {
	f, _ := m.LastFacts()
	return summarize(m.Ref.String(), f)
}

// timeUp ends the call at its deadline with polling; the wait continues in the next call.
func (d *driver) timeUp(act statemachine.Action) outcome {
	d.adoptGateHold()
	out := d.output(act)
	if act.SnoozedUntil.IsZero() {
		out.Message = "Still watching; nothing needs you yet. Call pr_monitor_next_step with event=ready to keep waiting."
	}
	next := "Call pr_monitor_next_step with event=ready to keep waiting."
	switch {
	case act.Kind == statemachine.ActionServer && d.holding():
		out.Message = fmt.Sprintf("GitHub work is waiting for GitHub's rate limit (nothing is sent before %s): %s. %s",
			clock(d.notBefore), act.Server.Describe, next)
	case act.Kind == statemachine.ActionServer:
		out.Message = "GitHub work continues in the next call: " + act.Server.Describe + ". " + next
	case d.holding():
		out.Message = fmt.Sprintf("Still watching; GitHub asked prmonitor to wait (rate limit): nothing is sent before %s. %s",
			clock(d.notBefore), next)
	}
	return outcome{kind: deadline, out: out}
}

// holding: GitHub asked this call to send nothing yet.
func (d *driver) holding() bool { return time.Until(d.notBefore) > 0 }

// crowded ends a call at once when too many calls already wait, so that the transport's workers
// stay free for pr_monitor_status and pr_monitor_stop.
func (d *driver) crowded(act statemachine.Action) outcome {
	out := d.output(act)
	out.Message = fmt.Sprintf("Still watching; %s already waiting, the most this server lets wait at once. "+
		"Call pr_monitor_next_step with event=ready again, or wait on every pull request with one call (monitor_id=all).",
		text.Count(d.s.waiting.size(), "call is", "calls are"))
	return outcome{kind: deadline, out: out}
}

// again is returned when a call has used its round trips: the question is asked in the next call.
func (d *driver) again(act statemachine.Action) contract.ActionOutput {
	out := d.output(statemachine.Action{Kind: statemachine.ActionPolling, State: act.State, Flow: act.Flow, Node: act.Node})
	out.Message = "A question is waiting for the user; call pr_monitor_next_step with event=ready to show it."
	return out
}

// cancelled is the answer of a call that was superseded or cancelled: what the monitor waits on,
// unchanged.
func (d *driver) cancelled() outcome {
	out := d.output(d.mon.Pending())
	out.Message = "This call was superseded or cancelled; call pr_monitor_next_step with event=ready to continue."
	return outcome{kind: cancelled, out: out}
}
