package monitorwf

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

// NextStepRequest is the agent's pr_monitor_next_step, as the Update's argument.
type NextStepRequest struct {
	Event       statemachine.Event     `json:"event"`
	Choice      elicitation.Value      `json:"choice,omitempty"`
	Data        statemachine.EventData `json:"data,omitzero"`
	QuestionSeq int                    `json:"question_seq,omitempty"`
	// Wait bounds how long the Update waits for something for the agent (a host cuts long calls);
	// zero or more than the monitor's MaxWait means MaxWait.
	Wait time.Duration `json:"wait,omitempty"`
}

// Reply is the Update's answer: the one action for the agent, or polling when the wait ran out.
type Reply struct {
	MonitorID string              `json:"monitor_id"`
	Action    statemachine.Action `json:"action"`
}

// ErrBusy rejects an event while the monitor waits on GitHub work whose outcome the machine has
// not seen: the event would be judged against a position about to change. Send it again shortly.
var ErrBusy = errors.New("the monitor is doing GitHub work; send the event again in a few seconds")

// ErrEnded rejects an event to a monitor that stopped or saw the merge.
var ErrEnded = errors.New("the monitor has ended")

func (r NextStepRequest) input() statemachine.Input {
	in := statemachine.EventInput(r.Event, r.Choice, r.Data)
	in.QuestionSeq = r.QuestionSeq
	return in
}

// validateNextStep runs the event through a copy of the machine: what the machine refuses (an
// unknown event, a choice not offered, an answer to an older question) is rejected before the
// Update is accepted, so it never enters the history. It changes nothing.
func (w *monitor) validateNextStep(ctx workflow.Context, req NextStepRequest) error {
	if w.ended() {
		return ErrEnded
	}
	if w.busy && req.Event != statemachine.EventReady {
		return ErrBusy
	}
	return w.try(ctx, req.input())
}

// try steps a copy of the machine.
func (w *monitor) try(ctx workflow.Context, in statemachine.Input) error {
	probe, err := statemachine.Restore(w.p.Machine, w.m.Position())
	if err != nil {
		return err
	}
	_, err = probe.Step(workflow.Now(ctx), in)
	return err
}

// nextStep applies the agent's event and waits, within the bound, until the machine has
// something for the agent: a task, a question, the end. Server work and reads it needs meanwhile
// are the loop's; the loop is woken to do them.
func (w *monitor) nextStep(ctx workflow.Context, req NextStepRequest) (Reply, error) {
	wait := req.Wait
	if wait <= 0 || wait > w.p.MaxWait {
		wait = w.p.MaxWait
	}
	end := workflow.Now(ctx).Add(wait)
	if ok, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return !w.busy }); err != nil {
		return Reply{}, err
	} else if !ok {
		if req.Event == statemachine.EventReady {
			return w.reply(), nil
		}
		return Reply{}, ErrBusy
	}
	in := req.input()
	if req.Event == statemachine.EventReady {
		// A task this run never handed out may not have reached the agent (a continued run, a
		// front end that lost the answer): ready hands it back.
		in.TaskUnseen = taskID(w.m.Position()) != w.handed
	}
	what := string(req.Event)
	if req.Choice != "" {
		what += " " + string(req.Choice)
	}
	if err := w.step(ctx, in, "agent: "+what); err != nil {
		return Reply{}, err
	}
	w.woken = true
	if left := end.Sub(workflow.Now(ctx)); left > 0 {
		if _, err := workflow.AwaitWithTimeout(ctx, left, w.forAgent); err != nil {
			return Reply{}, err
		}
	}
	return w.reply(), nil
}

// forAgent: the machine waits on the agent or the user, or has ended.
func (w *monitor) forAgent() bool {
	if w.busy {
		return false
	}
	switch w.act.Kind {
	case statemachine.ActionExecute, statemachine.ActionAskUser, statemachine.ActionStop, statemachine.ActionMerged:
		return true
	}
	return false
}

// reply is the current action for the agent, or polling while the machine watches or works.
func (w *monitor) reply() Reply {
	if !w.forAgent() {
		act := w.m.Pending()
		if act.Kind != statemachine.ActionPolling {
			act = statemachine.Action{Kind: statemachine.ActionPolling, State: act.State, Node: act.Node, Flow: act.Flow}
		}
		act.Message = "Still watching; call pr_monitor_next_step with event=ready again."
		return Reply{MonitorID: w.id, Action: act}
	}
	if w.act.Kind == statemachine.ActionExecute {
		w.handed = taskID(w.m.Position())
	}
	return Reply{MonitorID: w.id, Action: w.act}
}

// taskID identifies the task in progress: its name and when it began.
func taskID(p statemachine.Position) string {
	if p.Task == nil {
		return ""
	}
	return fmt.Sprintf("%s@%s", p.Task.Name, p.Task.StartedAt.UTC().Format(time.RFC3339Nano))
}
