package driver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/statemachine"
)

// What a call asks of the client: the user (elicitation) and the host's model (sampling).

// Input-request ids inside a multi-round-trip tool call.
const (
	inputAnswer = "answer"
	InputSample = "sample"
)

// refineCategory asks the host's model, when it offers sampling, for the concern category of a
// thread about to get a reply; the marker carries it to later rounds (prstatus/rounds). asked is
// false when there is nothing to ask, or the client refused to answer (the reply goes on without).
func (d *Driver) refineCategory(act statemachine.Action) (o Outcome, asked bool) {
	req := act.Server
	if req.Kind != statemachine.ServerPostReply || d.categorized || !d.canSample() || d.rounds >= d.h.RoundTrips() {
		d.categorized = false
		return Outcome{}, false
	}
	ctx := d.mon.Position().Comments
	if ctx == nil {
		return Outcome{}, false
	}
	var body, path string
	for _, t := range ctx.Threads {
		if t.ID == req.ThreadID {
			body, path = string(t.Comment), t.Path
		}
	}
	st := RequestState{Monitor: d.mon.ID, Kind: inputCategory, Rounds: d.rounds + 1, Text: req.ThreadID}
	params := categoryParams(body, path, req.Marker.Category)
	o = d.roundTrip(st, inputRequest{sample: &params}, func() Outcome { return Outcome{} }) // refused: no outcome
	return o, o.Kind != 0
}

// ask elicits the question from the user when the client can, else hands it to the agent.
func (d *Driver) ask(act statemachine.Action) Outcome { return d.askWith(act, "") }

// askWith is ask, with a note shown above the question in the form.
func (d *Driver) askWith(act statemachine.Action, note string) Outcome {
	if d.client.dismissed || d.client.taskCannotAsk || !d.canElicit() {
		return d.questionToAgent(act)
	}
	if d.rounds >= d.h.RoundTrips() {
		return deliver(d.again(act))
	}
	st := RequestState{Monitor: d.mon.ID, Kind: InputElicit, Seq: int64(act.Question.Seq), Rounds: d.rounds + 1}
	params := contract.QuestionForm(*act.Question, d.summary(), server.RequestProtocolVersion(d.ctx))
	if note != "" {
		params.Message = note + "\n\n" + params.Message
	}
	d.tieToTask(&params)
	// The host shows it: the user is notified if nobody answers, and an earlier relay of it no
	// longer stands.
	d.h.Asked(d.mon, act.Question, true)
	d.mon.ShownToHost(act.Question.Seq)
	return d.roundTrip(st, inputRequest{elicit: &params}, func() Outcome { return d.askWith(act, note) })
}

// questionToAgent hands the question to the agent (ask_user). When the host could not show it to
// the user (it shows none, refused or failed the form, or the call is a task that cannot ask), the
// agent relays the user's answer, which counts as theirs (consent.go). A question the user
// dismissed is the agent's to ask too, but a choice that merges is then taken only from the
// host's prompt, shown again on the next ready.
func (d *Driver) questionToAgent(act statemachine.Action) Outcome {
	out := d.output(act)
	why := contract.NoForms
	switch {
	case d.client.dismissed:
		why = contract.Dismissed
	case d.client.taskCannotAsk:
		why = contract.TaskCannotAsk
	case d.client.noElicitation:
		why = contract.FormFailed
	}
	relayed := d.mon.HandedToAgent(act.Question.Seq, why)
	out.Message = contract.AskAgentMessage(act.Message, why, relayed, contract.MergingChoices(d.mon.Position(), act.Question))
	return deliver(out)
}

// execute hands a task to the agent, unless the server can do it itself with sampling (explain a
// comment, compose a reply).
func (d *Driver) execute(act statemachine.Action) Outcome {
	kind := InputKind("")
	switch act.Task {
	case statemachine.TaskExplainComment:
		kind = InputExplain
	case statemachine.TaskComposeReply:
		kind = InputCompose
	}
	if kind == "" || !d.canSample() || d.rounds >= d.h.RoundTrips() {
		return deliver(d.output(act))
	}
	params := explainParams(act.Context)
	if kind == InputCompose {
		params = composeParams(act.Context)
	}
	st := RequestState{Monitor: d.mon.ID, Kind: kind, Seq: d.taskStamp(), Rounds: d.rounds + 1}
	return d.roundTrip(st, inputRequest{sample: &params}, func() Outcome { return d.execute(act) })
}

// resume continues a tool call the client retried with the answers to its input requests.
func (d *Driver) resume(st RequestState) Outcome {
	resps := d.responses
	pending := d.mon.Pending()
	switch st.Kind {
	case InputElicit, inputClassify:
		if pending.Kind != statemachine.ActionAskUser || int64(pending.Question.Seq) != st.Seq {
			if a := d.mon.Position().Answered; st.Kind == InputElicit && a != nil && int64(a.Seq) == st.Seq {
				// The client retried a call whose answer was taken (the server died inside it): the
				// machine recognises the repeat and answers with what it led to.
				in := answeredByUser(statemachine.ChoiceInput(a.Choice))
				in.QuestionSeq = a.Seq
				return d.run(in)
			}
			return failure(fmt.Errorf("%w: that question is no longer open; call pr_monitor_next_step with event=ready", ErrBadRequestState))
		}
		q := *pending.Question
		d.h.Settled(d.mon)
		if st.Kind == inputClassify {
			return d.afterClassify(q, st, server.SamplingResponse(resps, InputSample))
		}
		return d.afterElicit(q, contract.ReadForm(server.ElicitationResponse(resps, inputAnswer), q))
	case inputCategory:
		if pending.Kind != statemachine.ActionServer || pending.Server.Kind != statemachine.ServerPostReply || pending.Server.ThreadID != st.Text {
			return failure(fmt.Errorf("%w: that reply is no longer pending; call pr_monitor_next_step with event=ready", ErrBadRequestState))
		}
		req := *pending.Server
		if c, ok := readCategory(samplingText(server.SamplingResponse(resps, InputSample))); ok {
			req.Marker.Category = string(c)
		}
		d.categorized = true
		act, err := d.serverAction(req)
		if err != nil {
			return failure(err)
		}
		return d.Loop(act)
	case InputExplain, InputCompose:
		if pending.Kind != statemachine.ActionExecute || d.taskStamp() != st.Seq {
			return failure(fmt.Errorf("%w: that task is no longer open; call pr_monitor_next_step with event=ready", ErrBadRequestState))
		}
		text := samplingText(server.SamplingResponse(resps, InputSample))
		if text == "" { // the model gave nothing: the agent does it
			return deliver(d.output(pending))
		}
		if st.Kind == InputExplain {
			return d.run(statemachine.EventInput(statemachine.EventTaskComplete, "", statemachine.EventData{Recommendation: text}))
		}
		return d.run(statemachine.EventInput(pending.ExpectedEvents[0], "", statemachine.EventData{ReplyText: text}))
	}
	return failure(fmt.Errorf("%w: unknown input kind", ErrBadRequestState))
}

// afterElicit feeds the user's answer to the machine; free text goes through the deterministic
// matcher, then sampling, then the agent.
func (d *Driver) afterElicit(q elicitation.Question, a contract.FormAnswer) Outcome {
	var in statemachine.Input
	switch a.Kind {
	case statemachine.InputEvent:
		in = answeredByUser(statemachine.ChoiceInput(a.Choice))
	case statemachine.InputDecline:
		in = statemachine.DeclineInput()
	case statemachine.InputCancel:
		d.client.dismissed = true
		in = statemachine.CancelInput()
	default:
		if v, ok := elicitation.Match(a.Text, q); ok { // the user's own words, matched whole
			in = answeredByUser(statemachine.ChoiceInput(v))
			break
		}
		if d.canSample() && d.rounds < d.h.RoundTrips() {
			st := RequestState{Monitor: d.mon.ID, Kind: inputClassify, Seq: int64(q.Seq), Rounds: d.rounds + 1, Text: a.Text}
			params := classifyParams(q, a.Text)
			return d.roundTrip(st, inputRequest{sample: &params}, func() Outcome { return d.afterElicit(q, a) })
		}
		in = statemachine.FreeformInput(statemachine.FreeformAnswer{Text: a.Text, Classification: elicitation.ClassifiedUnavailable})
	}
	in.QuestionSeq = q.Seq
	return d.run(in)
}

func (d *Driver) afterClassify(q elicitation.Question, st RequestState, res *mcp.CreateMessageResult) Outcome {
	text := samplingText(res)
	var in statemachine.Input
	v, reasoning, ok := readClassification(text, q)
	switch {
	case ok && d.mon.Position().NeedsUser(v): // a model's reading is not the user's choice
		return d.confirmByUser(q, v, st.Text)
	case ok:
		in = statemachine.ChoiceInput(v)
	default:
		class := elicitation.ClassifiedCustom
		if text == "" {
			class = elicitation.ClassifiedUnavailable
		}
		in = statemachine.FreeformInput(statemachine.FreeformAnswer{Text: st.Text, Classification: class, Reasoning: reasoning})
	}
	in.QuestionSeq = q.Seq
	return d.run(in)
}

// taskStamp identifies the open task (its start time) so a sampling answer cannot land on another.
func (d *Driver) taskStamp() int64 {
	p := d.mon.Position()
	if p.Task == nil {
		return 0
	}
	return p.Task.StartedAt.UnixNano()
}

// canElicit: the client declared form elicitation (contract.FormElicitation; a client that declared URL
// mode only is never sent a form) and has not refused a prompt in this call.
func (d *Driver) canElicit() bool { return !d.client.noElicitation && d.hostElicits() }

func (d *Driver) canSample() bool {
	caps := contract.ClientCaps(d.ctx)
	return !d.client.noSampling && caps != nil && caps.Sampling != nil
}
