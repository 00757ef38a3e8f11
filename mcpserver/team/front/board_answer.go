package front

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/board"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/statemachine"
)

// A question answered on the board is the signed-in user's own answer, as a pick in a form the
// host showed is: it goes to the monitor as the same Update a form's answer sends (formStep), and
// a merge it asks for is made, and checked against GitHub, by the workflow like any other.

// boardAnswerWithin bounds how long an answer from the board waits on the monitor (the board
// shows what follows live; nothing waits here for the agent).
const boardAnswerWithin = 20 * time.Second

// boardAnswer is the board's AnswerFunc.
func (f *Front) boardAnswer(ctx context.Context, user, id string, seq int, choice elicitation.Value) error {
	ctx, cancel := context.WithTimeout(ctx, boardAnswerWithin)
	defer cancel()
	who, _ := monitorwf.ParseOwner(user)
	if _, err := f.owned(ctx, id, who); err != nil {
		if errors.Is(err, monitorwf.ErrUnknownMonitor) {
			return board.ErrUnknownMonitor
		}
		return err
	}
	act, err := monitorwf.Pending(ctx, f.cfg.Client, id)
	if err != nil {
		return err
	}
	q := act.Question
	if act.Kind != statemachine.ActionAskUser || q == nil || q.Seq != seq || !q.Offers(choice) {
		return board.ErrQuestionClosed
	}
	step := formStep(*q, contract.FormAnswer{Kind: statemachine.InputEvent, Choice: choice})
	step.Wait = time.Second // the answer is taken at once; what follows shows on the board
	for {
		_, err = monitorwf.NextStep(ctx, f.cfg.Client, id, step)
		if !monitorwf.IsBusy(err) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the monitor is doing GitHub work; answer again in a few seconds: %w", ctx.Err())
		case <-time.After(busyRetry):
		}
	}
	var notFound *serviceerror.NotFound
	var app *temporal.ApplicationError
	switch {
	case err == nil:
		f.cfg.Logger.Info("a question answered on the board", "user", user, "monitor", id, "seq", seq, "choice", string(choice))
		return nil
	case monitorwf.IsEnded(err), errors.As(err, &notFound):
		return board.ErrQuestionClosed
	case errors.As(err, &app):
		return errors.New(app.Message()) // the machine's refusal: nothing changed
	}
	return err
}

// formStep is the Update that carries the user's answer a to q, whether it came from a form the
// host showed or from the board.
func formStep(q elicitation.Question, a contract.FormAnswer) monitorwf.NextStepRequest {
	step := monitorwf.NextStepRequest{Event: statemachine.EventUserChose, QuestionSeq: q.Seq, By: statemachine.ByUser}
	switch a.Kind {
	case statemachine.InputEvent:
		step.Choice = a.Choice
	case statemachine.InputDecline:
		step.Form = monitorwf.FormDeclined
	case statemachine.InputCancel:
		step.Form = monitorwf.FormDismissed
	default:
		if v, ok := elicitation.Match(a.Text, q); ok {
			step.Choice = v
		} else {
			step.Form, step.Text = monitorwf.FormText, a.Text
		}
	}
	return step
}
