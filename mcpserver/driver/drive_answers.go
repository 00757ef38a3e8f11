package driver

import (
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// output turns a machine action into what the agent sees.
func (d *Driver) output(act statemachine.Action) contract.ActionOutput {
	out := contract.Output(d.mon.ID, act)
	out.PR = d.mon.Ref.String()
	out.Summary = d.summary()
	d.h.AnnotateSnooze(&out, act)
	return out
}

func (d *Driver) summary() string { return d.h.Summary(d.mon) }

// timeUp ends the call at its deadline with polling; the wait continues in the next call.
func (d *Driver) timeUp(act statemachine.Action) Outcome {
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
	return Outcome{Kind: deadline, Out: out}
}

// holding: GitHub asked this call to send nothing yet.
func (d *Driver) holding() bool { return time.Until(d.notBefore) > 0 }

// crowded ends a call at once when too many calls already wait, so that the transport's workers
// stay free for pr_monitor_status and pr_monitor_stop.
func (d *Driver) crowded(act statemachine.Action) Outcome {
	out := d.output(act)
	out.Message = fmt.Sprintf("Still watching; %s already waiting, the most this server lets wait at once. "+
		"Call pr_monitor_next_step with event=ready again, or wait on every pull request with one call (monitor_id=all).",
		text.Count(d.h.WaitSlots(), "call is", "calls are"))
	return Outcome{Kind: deadline, Out: out}
}

// again is returned when a call has used its round trips: the question is asked in the next call.
func (d *Driver) again(act statemachine.Action) contract.ActionOutput {
	out := d.output(statemachine.Action{Kind: statemachine.ActionPolling, State: act.State, Flow: act.Flow, Node: act.Node})
	out.Message = "A question is waiting for the user; call pr_monitor_next_step with event=ready to show it."
	return out
}

// cancelled is the answer of a call that was superseded or cancelled: what the monitor waits on,
// unchanged.
func (d *Driver) cancelled() Outcome {
	out := d.output(d.mon.Pending())
	out.Message = "This call was superseded or cancelled; call pr_monitor_next_step with event=ready to continue."
	return Outcome{Kind: cancelled, Out: out}
}
