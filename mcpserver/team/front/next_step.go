package front

import (
	"context"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// pr_monitor_next_step: the monitor's NextStep Update. The machine validates the event before the
// Update is accepted (a bad event or a choice not offered never enters the history); the Update
// waits, within the bound of the client's host, for something for the agent.

// updateMargin is kept between the Update's own wait and the call's bound, for Temporal's round
// trips: the answer arrives before the host gives up.
const updateMargin = 5 * time.Second

// busyRetry is how long a call waits before sending again an event the monitor refused while it
// did GitHub work.
const busyRetry = time.Second

// call is one next_step call as the front end drives it.
type call struct {
	user monitorwf.Owner
	id   string
	// run names the monitor's run as the call found it (monitorwf.Found.Run): the agent's answer
	// is a relay only for a question of that run.
	run      string
	deadline time.Time
	viaAll   bool
	rounds   int // questions put to the user in this call
	// confirming: the call puts the question in a form only to ask the user for the choice that
	// merges the agent sent; a host that cannot show it gets the refusal, not the question.
	confirming bool
}

// maxRounds bounds the forms one call shows (a form answered, then the next question).
const maxRounds = 4

func (f *Front) handleNextStep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in contract.NextStepInput
	if err := req.BindArguments(&in); err != nil {
		return contract.ToolError("bad arguments: " + err.Error()), nil
	}
	_, bound := contract.CallBound(ctx)
	c := &call{user: userOf(ctx), id: in.MonitorID, deadline: f.cfg.Now().Add(bound)}
	ctx, cancel := context.WithDeadline(ctx, c.deadline)
	defer cancel()
	defer f.heartbeat(ctx, req, c)()
	if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
		return f.resumeForm(ctx, c, req), nil
	}
	input, err := contract.NextStepEvent(in)
	if err != nil {
		return contract.ToolError(err.Error()), nil
	}
	step := monitorwf.NextStepRequest{Event: input.Event, Choice: input.Choice, Data: input.Data, QuestionSeq: input.QuestionSeq}
	if c.id == "all" {
		return f.nextStepAll(ctx, c, step), nil
	}
	found, err := f.owned(ctx, c.id, c.user)
	if err != nil {
		return f.unknownToDrive(c.id, err), nil
	}
	c.run = found.Run
	return f.drive(ctx, c, step), nil
}

// ownedError is a failed ownership check as a tool error: another user's monitor reads exactly as
// one that does not exist.
func (f *Front) ownedError(id string, err error) *mcp.CallToolResult {
	if errors.Is(err, monitorwf.ErrUnknownMonitor) {
		return contract.ToolError(contract.UnknownMonitor(id))
	}
	return contract.ToolError(text.Error(err))
}

// unknownToDrive is ownedError for a next_step, which says what to call first.
func (f *Front) unknownToDrive(id string, err error) *mcp.CallToolResult {
	if errors.Is(err, monitorwf.ErrUnknownMonitor) {
		return contract.ToolError(contract.UnknownMonitorToDrive(id))
	}
	return f.ownedError(id, err)
}

// drive sends the agent's event and renders what comes back: a question goes to the user through
// a form when the host can show one (ask.go).
func (f *Front) drive(ctx context.Context, c *call, step monitorwf.NextStepRequest) *mcp.CallToolResult {
	if step.Event == statemachine.EventUserChose {
		step = f.agentAnswer(ctx, c, step)
	}
	r, err := f.update(ctx, c, step)
	if monitorwf.IsNotTheUsers(err) {
		// The machine did not take the agent's word for a choice that merges: the user is asked in
		// a form instead, where this session can show one.
		if contract.ClientCanElicit(ctx) {
			if res, ok := f.confirm(ctx, c, step); ok {
				return res
			}
		}
		return f.refused(ctx, c, err)
	}
	if err != nil {
		return f.updateError(ctx, c, err)
	}
	if r.Action.Kind == statemachine.ActionAskUser && r.Action.Question != nil {
		return f.ask(ctx, c, r)
	}
	return f.render(c, r.PR, r.Summary, r.Action)
}

// agentAnswer marks the agent's user_chose by the contract's consent rule: the user's, relayed,
// only for a question of this run a form-capable host of the user could not show.
func (f *Front) agentAnswer(ctx context.Context, c *call, step monitorwf.NextStepRequest) monitorwf.NextStepRequest {
	seq := step.QuestionSeq
	if seq == 0 {
		if st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, c.id); err == nil && st.Question != nil {
			seq = st.Question.Seq
		}
	}
	in := f.relays.AgentAnswer(statemachine.ChoiceInput(step.Choice), contract.QuestionKey{Monitor: c.id, Run: c.run, Seq: seq},
		!contract.ClientCanElicit(ctx)) // a session's word: never a relay over HTTP (the policy)
	step.By, step.Run = in.By, c.run
	return step
}

// refused is the machine's refusal of the agent's choice that merges, as a tool error.
func (f *Front) refused(ctx context.Context, c *call, err error) *mcp.CallToolResult {
	cause := text.Error(err)
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		cause = app.Message()
	}
	act, perr := monitorwf.Pending(ctx, f.cfg.Client, c.id)
	interpreting := perr == nil && act.Kind == statemachine.ActionExecute && act.Task == statemachine.TaskInterpretFreeform
	return contract.ToolError(contract.Refusal(cause, interpreting))
}

// update sends the Update, again while the monitor is busy with GitHub work and the call has time.
func (f *Front) update(ctx context.Context, c *call, step monitorwf.NextStepRequest) (monitorwf.Reply, error) {
	for {
		step.Wait = max(time.Until(c.deadline)-updateMargin, time.Second)
		r, err := monitorwf.NextStep(ctx, f.cfg.Client, c.id, step)
		if err == nil || !monitorwf.IsBusy(err) || time.Until(c.deadline) < updateMargin {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, err
		case <-time.After(busyRetry):
		}
	}
}

// updateError renders a refused or failed Update.
func (f *Front) updateError(ctx context.Context, c *call, err error) *mcp.CallToolResult {
	var notFound *serviceerror.NotFound
	var app *temporal.ApplicationError
	switch {
	case monitorwf.IsEnded(err), errors.As(err, &notFound):
		return f.ended(c)
	case monitorwf.IsBusy(err):
		return contract.ToolError("the monitor is doing GitHub work; send the same event again in a few seconds (nothing was lost)")
	case ctx.Err() != nil:
		return f.stillWatching(c, "Still watching; call pr_monitor_next_step with event=ready to keep waiting.")
	case errors.As(err, &app):
		return contract.ToolError(app.Message()) // the machine's refusal: nothing changed
	}
	return contract.ToolError("the monitor could not be reached: " + text.Error(err))
}

// render is an action as the agent reads it.
func (f *Front) render(c *call, pr, summary string, act statemachine.Action) *mcp.CallToolResult {
	out := contract.AgentAction(c.id, pr, summary, act)
	if c.viaAll {
		out = contract.ViaAll(out)
		f.mu.Lock()
		f.handed[c.user.Key()] = c.id
		f.mu.Unlock()
	}
	return contract.Result(out)
}

// ended answers a call to a monitor that stopped or saw the merge with how it ended.
func (f *Front) ended(c *call) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	act, err := monitorwf.Final(ctx, f.cfg.Client, c.id)
	if err != nil || (act.Kind != statemachine.ActionStop && act.Kind != statemachine.ActionMerged) {
		act = statemachine.Action{Kind: statemachine.ActionStop, State: statemachine.StateStopped}
	}
	act.Message = "This monitor has ended; pr_monitor_start starts a new one."
	return f.render(c, "", "", act)
}

// stillWatching is the answer of a call whose bound came first.
func (f *Front) stillWatching(c *call, msg string) *mcp.CallToolResult {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	act := statemachine.Action{Kind: statemachine.ActionPolling, State: statemachine.StatePolling, Message: msg}
	pr, summary := "", ""
	if st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, c.id); err == nil {
		act.State, act.Node, act.Flow, pr, summary = st.State, st.Node, st.Flow, st.PR, st.Summary
	}
	return f.render(c, pr, summary, act)
}
