package front

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Questions. Over HTTP a form reaches the user only inside a call: in the 2025-11-25 era the
// server sends elicitation/create on the call's own response stream and waits for the answer
// (bounded by the call, like any wait); in the 2026-07-28 era the call answers input_required and
// the client calls again with the user's answer and the request state this process signed. A
// client that declares no form elicitation, or refuses or fails the form, gets ask_user for the
// agent. Consent is the contract's rule (contract/consent.go): a form's answer is the user's; the
// agent's answer is the user's, relayed, only for a question a form was put for and refused or
// failed (f.relays, named by monitor, run and seq); any other answer of the agent's that merges is
// refused by the machine and put to the user in a form instead, where the session can show one.

// inputAnswer is the input request's id of the question's form.
const inputAnswer = "answer"

// purposeQuestion signs the request state of a question put to a 2026-07-28 client.
const purposeQuestion = "question"

// questionTTL bounds how long an unanswered form's request state is taken back.
const questionTTL = time.Hour

// formState is what a question's request state carries.
type formState struct {
	Monitor string `json:"m"`
	Seq     int    `json:"s"`
	Rounds  int    `json:"r"`
}

// ask puts r's question to the user: a form when the host can show one, else ask_user.
func (f *Front) ask(ctx context.Context, c *call, r monitorwf.Reply) *mcp.CallToolResult {
	q := *r.Action.Question
	k := contract.QuestionKey{Monitor: c.id, Run: r.Run, Seq: q.Seq}
	switch {
	case f.relays.Relayed(k):
		return f.toAgent(c, r, contract.FormFailed, true)
	case !contract.ClientCanElicit(ctx):
		return f.toAgent(c, r, contract.NoForms, f.relays.Handed(k, contract.NoForms))
	}
	if c.rounds >= maxRounds {
		return f.stillWatching(c, "A question is waiting for the user; call pr_monitor_next_step with event=ready to show it.")
	}
	c.rounds++
	version := server.RequestProtocolVersion(ctx)
	params := contract.QuestionForm(q, r.Summary, version)
	if mcp.IsModernProtocol(version) {
		token, err := f.signer.sign(purposeQuestion, c.user.String(), questionTTL, formState{Monitor: c.id, Seq: q.Seq, Rounds: c.rounds})
		if err != nil {
			return contract.ToolError(text.Error(err))
		}
		return server.NewInputRequestBuilder(token).Elicit(inputAnswer, params).ToolResult()
	}
	res, err := f.mcp.RequestElicitation(ctx, mcp.ElicitationRequest{Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)}, Params: params})
	switch {
	case ctx.Err() != nil:
		return f.stillWatching(c, "A question is waiting for the user; call pr_monitor_next_step with event=ready to show it again.")
	case err != nil || res == nil:
		f.cfg.Logger.Info("the client refused or failed a form; the agent relays the question", "monitor", c.id, "err", err)
		return f.toAgent(c, r, contract.FormFailed, f.relays.Handed(k, contract.FormFailed))
	}
	return f.answer(ctx, c, q, contract.ReadForm(res, q))
}

// answer sends what the user answered in the form to the monitor.
func (f *Front) answer(ctx context.Context, c *call, q elicitation.Question, a contract.FormAnswer) *mcp.CallToolResult {
	c.confirming = false // the user answered: what follows is theirs to see
	r, err := f.update(ctx, c, formStep(q, a))
	if err != nil {
		return f.updateError(ctx, c, err)
	}
	if r.Action.Kind == statemachine.ActionAskUser && r.Action.Question != nil && a.Kind != statemachine.InputCancel {
		return f.ask(ctx, c, r)
	}
	return f.render(c, r.PR, r.Summary, r.Action)
}

// confirm puts the open question to the user in a form when the machine refused the agent's
// choice because it merges; ok is false when that question is not the one open, or the host could
// not show the form.
func (f *Front) confirm(ctx context.Context, c *call, step monitorwf.NextStepRequest) (*mcp.CallToolResult, bool) {
	st, err := monitorwf.QueryMonitor(ctx, f.cfg.Client, c.id)
	if err != nil || st.Question == nil || (step.QuestionSeq != 0 && st.Question.Seq != step.QuestionSeq) || !st.Question.Offers(step.Choice) {
		return nil, false
	}
	act, err := monitorwf.Pending(ctx, f.cfg.Client, c.id)
	if err != nil || act.Kind != statemachine.ActionAskUser || act.Question == nil {
		return nil, false
	}
	c.confirming = true
	res := f.ask(ctx, c, monitorwf.Reply{MonitorID: c.id, Run: st.Run, PR: st.PR, Summary: st.Summary, Action: act})
	c.confirming = false
	return res, res != nil
}

// resumeForm takes a 2026-07-28 client's answer to a form: the request state must be one this
// process signed for this user, and the question still open.
func (f *Front) resumeForm(ctx context.Context, c *call, req mcp.CallToolRequest) *mcp.CallToolResult {
	var st formState
	user, err := f.signer.open(req.Params.RequestState, purposeQuestion, &st)
	if err != nil || user != c.user.String() || (c.id != "all" && st.Monitor != c.id) {
		return contract.ToolError("stale or forged request state: call pr_monitor_next_step with event=ready")
	}
	if c.id == "all" {
		c.viaAll = true
	}
	c.id, c.rounds = st.Monitor, st.Rounds
	found, err := f.owned(ctx, c.id, c.user)
	if err != nil {
		return f.ownedError(c.id, err)
	}
	c.run = found.Run
	act, err := monitorwf.Pending(ctx, f.cfg.Client, c.id)
	if err != nil {
		return f.updateError(ctx, c, err)
	}
	if act.Kind != statemachine.ActionAskUser || act.Question == nil || act.Question.Seq != st.Seq {
		return contract.ToolError("that question is no longer open: call pr_monitor_next_step with event=ready")
	}
	res := server.ElicitationResponse(req.Params.InputResponses, inputAnswer)
	return f.answer(ctx, c, *act.Question, contract.ReadForm(res, *act.Question))
}

// toAgent hands r's question to the agent (ask_user), saying why and whether its answer will be
// the user's, relayed.
func (f *Front) toAgent(c *call, r monitorwf.Reply, why contract.NotShown, relayed bool) *mcp.CallToolResult {
	if c.confirming {
		return nil
	}
	act := r.Action
	act.Message = contract.AskAgentMessage(act.Message, why, relayed, merging(*act.Question))
	return f.render(c, r.PR, r.Summary, act)
}

// merging lists q's choices that only the user's own answer can make.
func merging(q elicitation.Question) []elicitation.Value {
	return contract.MergingChoices(statemachine.Position{Question: &q}, &q)
}
