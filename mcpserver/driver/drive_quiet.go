package driver

import (
	"fmt"

	"github.com/prmonitor/prmonitor/statemachine"
)

// holdForQuiet keeps a question from the user during quiet hours: it waits until they end (then
// held is false, and the question is asked) or until the call's deadline or cancellation (then
// the call ends with o: polling, quiet until ...).
func (d *Driver) holdForQuiet(act statemachine.Action) (o Outcome, held bool) {
	until := d.h.QuietUntil()
	if until.IsZero() {
		return Outcome{}, false
	}
	d.call.Progress.Remark("quiet hours: the question waits until " + d.h.LocalTime(until))
	defer d.call.Progress.Remark("")
	if wait(d.ctx, until.Sub(d.h.Now()), d.call.Deadline) && d.h.QuietUntil().IsZero() {
		return Outcome{}, false
	}
	if d.ctx.Err() != nil {
		return d.cancelled(), true
	}
	out := d.output(statemachine.Action{Kind: statemachine.ActionPolling, State: act.State, Flow: act.Flow, Node: act.Node})
	out.QuietUntil = d.h.Stamp(until)
	out.Message = fmt.Sprintf("Quiet hours: quiet until %s. A question is waiting and will be asked then; don't ask the user meanwhile. "+
		"Call pr_monitor_next_step with event=ready to keep looping.", d.h.LocalTime(until))
	return Outcome{Kind: deadline, Out: out}, true
}
