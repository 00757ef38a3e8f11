package monitorwf

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
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
	// Form is how the user answered the question in a form, when the answer is not a choice:
	// FormDeclined, FormDismissed, or FormText (the user's words in Text, which no choice
	// matched). Empty for an event.
	Form string `json:"form,omitempty"`
	Text string `json:"text,omitempty"`
	// By is whose answer this is (the front end knows how it reached it): only the user's own
	// pick in a form, or the agent relaying a question the host could not show, may merge.
	By statemachine.AnsweredBy `json:"by,omitempty"`
	// Run is the run (its first run id) whose question the front end found the agent relays: a
	// relay meant for another run's question (the monitor was stopped and started meanwhile) is
	// only the agent's word here.
	Run string `json:"run,omitempty"`
}

// How a form was answered without a choice (NextStepRequest.Form).
const (
	FormDeclined  = "declined"
	FormDismissed = "dismissed"
	FormText      = "text"
)

// Reply is the Update's answer: the one action for the agent, or polling when the wait ran out,
// with the pull request and its state in one line.
type Reply struct {
	MonitorID string `json:"monitor_id"`
	// Run names the monitor's run (its first run id, kept across continue-as-new): a question is
	// named by its monitor, run and seq.
	Run     string              `json:"run,omitempty"`
	PR      string              `json:"pr,omitempty"`
	Summary string              `json:"summary,omitempty"`
	Action  statemachine.Action `json:"action"`
}

// The types of the Update's own refusals (temporal.ApplicationError's type), which a front end
// tells apart from the machine's (IsBusy, IsEnded).
const (
	ErrTypeBusy  = "MonitorBusy"
	ErrTypeEnded = "MonitorEnded"
	// ErrTypeNotTheUsers: the machine refused a choice that merges because it was not the user's
	// (statemachine.ErrNotTheUsersChoice); a front end asks the user instead.
	ErrTypeNotTheUsers = "NotTheUsersChoice"
)

// ErrBusy rejects an event while the monitor waits on GitHub work whose outcome the machine has
// not seen: the event would be judged against a position about to change. Send it again shortly.
var ErrBusy = temporal.NewApplicationError("the monitor is doing GitHub work; send the event again in a few seconds", ErrTypeBusy)

// ErrEnded rejects an event to a monitor that stopped or saw the merge.
var ErrEnded = temporal.NewApplicationError("the monitor has ended", ErrTypeEnded)

// IsBusy reports whether an Update was refused with ErrBusy (as it comes back from the server).
func IsBusy(err error) bool { return hasType(err, ErrTypeBusy) }

// IsEnded reports whether an Update was refused with ErrEnded.
func IsEnded(err error) bool { return hasType(err, ErrTypeEnded) }

// IsNotTheUsers reports whether an Update was refused because a choice that merges was not the
// user's own.
func IsNotTheUsers(err error) bool { return hasType(err, ErrTypeNotTheUsers) }

// refusal is the machine's refusal as the Update's error, typed when a front end acts on it.
func refusal(err error) error {
	if errors.Is(err, statemachine.ErrNotTheUsersChoice) {
		return temporal.NewApplicationError(err.Error(), ErrTypeNotTheUsers)
	}
	return err
}

func hasType(err error, typ string) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && app.Type() == typ
}

func (r NextStepRequest) input() statemachine.Input {
	var in statemachine.Input
	switch r.Form {
	case FormDeclined:
		in = statemachine.DeclineInput()
	case FormDismissed:
		in = statemachine.CancelInput()
	case FormText:
		in = statemachine.FreeformInput(statemachine.FreeformAnswer{Text: r.Text, Classification: elicitation.ClassifiedUnavailable})
	default:
		in = statemachine.EventInput(r.Event, r.Choice, r.Data)
	}
	in.QuestionSeq = r.QuestionSeq
	return in.From(r.By)
}

// input is req as the machine's input: a relay is taken only for this run's questions.
func (w *monitor) input(req NextStepRequest) statemachine.Input {
	in := req.input()
	if in.By == statemachine.ByRelay && req.Run != "" && req.Run != w.firstRun {
		in = in.From("")
	}
	return in
}

// validateNextStep runs the event through a copy of the machine: what the machine refuses (an
// unknown event, a choice not offered, an answer to an older question) is rejected before the
// Update is accepted, so it never enters the history. It changes nothing.
func (w *monitor) validateNextStep(ctx workflow.Context, req NextStepRequest) error {
	if w.ended() {
		return ErrEnded
	}
	if w.busy && (req.Event != statemachine.EventReady || req.Form != "") {
		return ErrBusy
	}
	if req.Form != "" && req.Form != FormDeclined && req.Form != FormDismissed && req.Form != FormText {
		return fmt.Errorf("form answer %q is not one of %s, %s, %s", req.Form, FormDeclined, FormDismissed, FormText)
	}
	return refusal(w.try(ctx, w.input(req)))
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
		if req.Event == statemachine.EventReady && req.Form == "" {
			return w.reply(), nil
		}
		return Reply{}, ErrBusy
	}
	in := w.input(req)
	if req.Event == statemachine.EventReady && req.Form == "" {
		// A task this run never handed out may not have reached the agent (a continued run, a
		// front end that lost the answer): ready hands it back.
		in.TaskUnseen = taskID(w.m.Position()) != w.handed
	}
	what := string(req.Event)
	switch {
	case req.Form != "":
		what = "form " + req.Form
	case req.Choice != "":
		what += " " + string(req.Choice)
	}
	if err := w.step(ctx, in, "agent: "+what); err != nil {
		return Reply{}, refusal(err)
	}
	w.woken = true
	if left := end.Sub(workflow.Now(ctx)); left > 0 {
		w.callsWaiting++
		_, err := workflow.AwaitWithTimeout(ctx, left, w.forAgent)
		w.callsWaiting--
		if err != nil {
			return Reply{}, err
		}
	}
	r := w.reply()
	w.changeAnswered(ctx, r.Action)
	return r, nil
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
		return w.replyWith(act)
	}
	if w.act.Kind == statemachine.ActionExecute {
		w.handed = taskID(w.m.Position())
	}
	return w.replyWith(w.act)
}

func (w *monitor) replyWith(act statemachine.Action) Reply {
	return Reply{MonitorID: w.id, Run: w.firstRun, PR: w.p.Ref.String(), Summary: prstatus.SummaryLine(w.p.Ref.String(), w.facts), Action: act}
}

// taskID identifies the task in progress: its name and when it began.
func taskID(p statemachine.Position) string {
	if p.Task == nil {
		return ""
	}
	return fmt.Sprintf("%s@%s", p.Task.Name, p.Task.StartedAt.UTC().Format(time.RFC3339Nano))
}
