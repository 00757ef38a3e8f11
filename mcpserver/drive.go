package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Input-request ids inside a multi-round-trip tool call.
const (
	inputAnswer = "answer"
	inputSample = "sample"
)

// serverActionTimeout bounds one piece of GitHub work. It runs detached from the tool call's
// cancellation: a superseded call must not leave a reply half-posted and reported as failed.
const serverActionTimeout = 2 * time.Minute

// freshFor is how long the snapshot taken by pr_monitor_start stands in for the first poll.
const freshFor = 30 * time.Second

// driver runs a monitor's machine inside one tool call until there is something for the agent, or
// the user must be asked (an input request), or the call has blocked long enough.
type driver struct {
	s        *Server
	mon      *monitor
	ctx      context.Context
	req      mcp.CallToolRequest
	rounds   int
	deadline time.Time
	failures int
	// toAgent hands the next question to the agent instead of eliciting it (the user dismissed
	// the prompt, or the client cannot elicit).
	toAgent bool
	ticks   float64
	// categorized: the reply about to be posted already had its category refined.
	categorized bool
}

func (s *Server) newDriver(ctx context.Context, mon *monitor, req mcp.CallToolRequest, rounds int) *driver {
	return &driver{s: s, mon: mon, ctx: ctx, req: req, rounds: rounds, deadline: time.Now().Add(s.cfg.MaxBlock)}
}

// run feeds the first input and keeps going. A ready during a task this process never handed to
// the agent says so: after a restart the agent may not have the task, and gets it back.
func (d *driver) run(in statemachine.Input) (*mcp.CallToolResult, error) {
	if in.Kind == statemachine.InputEvent && in.Event == statemachine.EventReady {
		in.TaskUnseen = !d.mon.taskHandedOut()
	}
	act, err := d.mon.step(d.s.cfg.Now(), in)
	if err != nil {
		return toolError(err.Error()), nil
	}
	return d.loop(act)
}

func (d *driver) loop(act statemachine.Action) (*mcp.CallToolResult, error) {
	for {
		if d.ctx.Err() != nil {
			out := d.output(d.mon.pending())
			out.Message = "This call was superseded or cancelled; call pr_monitor_next_step with event=ready to continue."
			return d.result(out), nil
		}
		var err error
		switch act.Kind {
		case statemachine.ActionServer:
			if res := d.refineCategory(act); res != nil {
				return res, nil
			}
			act, err = d.serverAction(*act.Server)
		case statemachine.ActionPolling:
			var res *mcp.CallToolResult
			act, res, err = d.poll(act)
			if res != nil {
				return res, nil
			}
		case statemachine.ActionAskUser:
			return d.ask(act)
		case statemachine.ActionExecute:
			return d.execute(act)
		default: // stop, merged
			return d.result(d.output(act)), nil
		}
		if err != nil {
			return toolError(err.Error()), nil
		}
	}
}

// serverAction does GitHub work for the machine and feeds the outcome back.
func (d *driver) serverAction(req statemachine.ServerRequest) (statemachine.Action, error) {
	gh, err := d.s.github(d.ctx)
	if err != nil {
		return statemachine.Action{}, fmt.Errorf("%s", githubCause(err))
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(d.ctx), serverActionTimeout)
	defer cancel()
	in := execute(ctx, gh, d.mon.ref, req, d.s.cfg.Now())
	d.mon.state.Log(d.mon.id, "github", req.Describe, in.Outcome)
	return d.mon.step(d.s.cfg.Now(), in)
}

// poll waits (sending progress), takes one snapshot (one GraphQL request) and feeds the facts to
// the machine. A GitHub failure that waiting cannot heal ends the call with an error and leaves
// the monitor untouched; a transient one is retried with backoff until the deadline.
func (d *driver) poll(act statemachine.Action) (statemachine.Action, *mcp.CallToolResult, error) {
	facts, at := d.mon.lastFacts()
	delay := d.s.cfg.Poll.next(facts, d.failures, d.s.cfg.Now())
	if act.PollNow && d.failures == 0 {
		delay = 0
	}
	if facts != nil && d.s.cfg.Now().Sub(at) < delay {
		delay -= d.s.cfg.Now().Sub(at)
	}
	if time.Now().After(d.deadline) {
		return act, d.result(d.stillWaiting(act)), nil
	}
	if act.PollNow {
		if f := d.mon.takeFresh(d.s.cfg.Now(), freshFor); f != nil {
			next, err := d.mon.step(d.s.cfg.Now(), statemachine.PollInput(*f))
			return next, nil, err
		}
	}
	if delay > 0 && !wait(d.ctx, delay, d.deadline, d.s.cfg.ProgressEvery, d.progress) {
		if d.ctx.Err() != nil {
			return act, nil, nil // the loop reports the cancellation
		}
		return act, d.result(d.stillWaiting(act)), nil
	}
	gh, err := d.s.github(d.ctx)
	if err != nil {
		return act, toolError(githubCause(err)), nil
	}
	snap, err := gh.Snapshot(d.ctx, d.mon.ref)
	if err != nil {
		if d.ctx.Err() != nil {
			return act, nil, nil
		}
		if fatalGitHub(err) {
			return act, toolError(githubCause(err)), nil
		}
		d.failures++
		d.mon.state.Log(d.mon.id, "error", "poll failed: "+githubCause(err), nil)
		d.progressMessage(fmt.Sprintf("%s · GitHub unreachable (%s); retrying", d.mon.ref, oneLine(err)))
		return act, nil, nil
	}
	d.failures = 0
	f := prstatus.Derive(snap, d.s.cfg.Now())
	next, err := d.mon.step(d.s.cfg.Now(), statemachine.PollInput(f))
	return next, nil, err
}

// refineCategory asks the host's model, when it offers sampling, for the concern category of a
// thread about to get a reply; the marker carries it to later rounds (DESIGN §9). It returns nil
// when there is nothing to ask.
func (d *driver) refineCategory(act statemachine.Action) *mcp.CallToolResult {
	req := act.Server
	if req.Kind != statemachine.ServerPostReply || d.categorized || !d.canSample() || d.rounds >= d.s.cfg.RoundTrips {
		d.categorized = false
		return nil
	}
	ctx := d.mon.position().Comments
	if ctx == nil {
		return nil
	}
	var body, path string
	for _, t := range ctx.Threads {
		if t.ID == req.ThreadID {
			body, path = string(t.Comment), t.Path
		}
	}
	token, err := d.s.seal.seal(requestState{Monitor: d.mon.id, Kind: inputCategory, Rounds: d.rounds + 1, Text: req.ThreadID})
	if err != nil {
		return nil
	}
	return server.NewInputRequestBuilder(token).Sample(inputSample, categoryParams(body, path, req.Marker.Category)).ToolResult()
}

// ask elicits the question from the user when the client can, else hands it to the agent.
func (d *driver) ask(act statemachine.Action) (*mcp.CallToolResult, error) {
	if d.toAgent || !d.canElicit() {
		out := d.output(act)
		if d.toAgent && act.Message == "" {
			out.Message = "Ask the user this question and answer with user_chose."
		}
		return d.result(out), nil
	}
	if d.rounds >= d.s.cfg.RoundTrips {
		return d.result(d.again(act)), nil
	}
	st := requestState{Monitor: d.mon.id, Kind: inputElicit, Seq: int64(act.Question.Seq), Rounds: d.rounds + 1}
	token, err := d.s.seal.seal(st)
	if err != nil {
		return toolError(err.Error()), nil
	}
	return server.NewInputRequestBuilder(token).Elicit(inputAnswer, elicitParams(*act.Question, d.summary())).ToolResult(), nil
}

// execute hands a task to the agent, unless the server can do it itself with sampling (explain a
// comment, compose a reply).
func (d *driver) execute(act statemachine.Action) (*mcp.CallToolResult, error) {
	kind := inputKind("")
	switch act.Task {
	case statemachine.TaskExplainComment:
		kind = inputExplain
	case statemachine.TaskComposeReply:
		kind = inputCompose
	}
	if kind == "" || !d.canSample() || d.rounds >= d.s.cfg.RoundTrips {
		return d.result(d.output(act)), nil
	}
	params := explainParams(act.Context)
	if kind == inputCompose {
		params = composeParams(act.Context)
	}
	token, err := d.s.seal.seal(requestState{Monitor: d.mon.id, Kind: kind, Seq: d.taskStamp(), Rounds: d.rounds + 1})
	if err != nil {
		return toolError(err.Error()), nil
	}
	return server.NewInputRequestBuilder(token).Sample(inputSample, params).ToolResult(), nil
}

// resume continues a tool call the client retried with the answers to its input requests.
func (d *driver) resume(st requestState) (*mcp.CallToolResult, error) {
	resps := d.req.Params.InputResponses
	pending := d.mon.pending()
	switch st.Kind {
	case inputElicit, inputClassify:
		if pending.Kind != statemachine.ActionAskUser || int64(pending.Question.Seq) != st.Seq {
			if a := d.mon.position().Answered; st.Kind == inputElicit && a != nil && int64(a.Seq) == st.Seq {
				// The client retried a call whose answer was taken (the server died inside it): the
				// machine recognises the repeat and answers with what it led to.
				in := statemachine.ChoiceInput(a.Choice)
				in.QuestionSeq = a.Seq
				return d.run(in)
			}
			return toolError(fmt.Sprintf("%v: that question is no longer open; call pr_monitor_next_step with event=ready", ErrBadRequestState)), nil
		}
		q := *pending.Question
		if st.Kind == inputClassify {
			return d.afterClassify(q, st, server.SamplingResponse(resps, inputSample))
		}
		return d.afterElicit(q, readElicitation(server.ElicitationResponse(resps, inputAnswer), q))
	case inputCategory:
		if pending.Kind != statemachine.ActionServer || pending.Server.Kind != statemachine.ServerPostReply || pending.Server.ThreadID != st.Text {
			return toolError(fmt.Sprintf("%v: that reply is no longer pending; call pr_monitor_next_step with event=ready", ErrBadRequestState)), nil
		}
		req := *pending.Server
		if c, ok := readCategory(samplingText(server.SamplingResponse(resps, inputSample))); ok {
			req.Marker.Category = string(c)
		}
		d.categorized = true
		act, err := d.serverAction(req)
		if err != nil {
			return toolError(err.Error()), nil
		}
		return d.loop(act)
	case inputExplain, inputCompose:
		if pending.Kind != statemachine.ActionExecute || d.taskStamp() != st.Seq {
			return toolError(fmt.Sprintf("%v: that task is no longer open; call pr_monitor_next_step with event=ready", ErrBadRequestState)), nil
		}
		text := samplingText(server.SamplingResponse(resps, inputSample))
		if text == "" { // the model gave nothing: the agent does it
			return d.result(d.output(pending)), nil
		}
		if st.Kind == inputExplain {
			return d.run(statemachine.EventInput(statemachine.EventTaskComplete, "", statemachine.EventData{Recommendation: text}))
		}
		return d.run(statemachine.EventInput(pending.ExpectedEvents[0], "", statemachine.EventData{ReplyText: text}))
	}
	return toolError(fmt.Sprintf("%v: unknown input kind", ErrBadRequestState)), nil
}

// afterElicit feeds the user's answer to the machine; free text goes through the deterministic
// matcher, then sampling, then the agent.
func (d *driver) afterElicit(q elicitation.Question, a answer) (*mcp.CallToolResult, error) {
	var in statemachine.Input
	switch a.kind {
	case statemachine.InputEvent:
		in = statemachine.ChoiceInput(a.choice)
	case statemachine.InputDecline:
		in = statemachine.DeclineInput()
	case statemachine.InputCancel:
		d.toAgent = true
		in = statemachine.CancelInput()
	default:
		if v, ok := elicitation.Match(a.text, q); ok {
			in = statemachine.ChoiceInput(v)
			break
		}
		if d.canSample() && d.rounds < d.s.cfg.RoundTrips {
			st := requestState{Monitor: d.mon.id, Kind: inputClassify, Seq: int64(q.Seq), Rounds: d.rounds + 1, Text: a.text}
			token, err := d.s.seal.seal(st)
			if err != nil {
				return toolError(err.Error()), nil
			}
			return server.NewInputRequestBuilder(token).Sample(inputSample, classifyParams(q, a.text)).ToolResult(), nil
		}
		in = statemachine.FreeformInput(statemachine.FreeformAnswer{Text: a.text, Classification: elicitation.ClassifiedUnavailable})
	}
	in.QuestionSeq = q.Seq
	return d.run(in)
}

func (d *driver) afterClassify(q elicitation.Question, st requestState, res *mcp.CreateMessageResult) (*mcp.CallToolResult, error) {
	text := samplingText(res)
	var in statemachine.Input
	v, reasoning, ok := readClassification(text, q)
	if ok {
		in = statemachine.ChoiceInput(v)
	} else {
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
func (d *driver) taskStamp() int64 {
	p := d.mon.position()
	if p.Task == nil {
		return 0
	}
	return p.Task.StartedAt.UnixNano()
}

func (d *driver) canElicit() bool {
	caps := clientCaps(d.ctx)
	return caps != nil && caps.Elicitation != nil
}

func (d *driver) canSample() bool {
	caps := clientCaps(d.ctx)
	return caps != nil && caps.Sampling != nil
}

// clientCaps returns what the client declared: per request in the 2026-07-28 era, at initialize
// before it.
func clientCaps(ctx context.Context) *mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		c := s.GetClientCapabilities()
		return &c
	}
	return nil
}
