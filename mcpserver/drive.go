package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/effects"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Input-request ids inside a multi-round-trip tool call.
const (
	inputAnswer = "answer"
	inputSample = "sample"
)

// serverActionTimeout bounds one piece of GitHub work, and so does the call's deadline, whichever
// comes first. It runs detached from the tool call's cancellation: a superseded call must not
// leave a reply half-posted and reported as failed.
const serverActionTimeout = 2 * time.Minute

// freshFor is how long the snapshot taken by pr_monitor_start stands in for the first poll.
const freshFor = 30 * time.Second

// driver runs a monitor's machine inside one tool call until there is something for the agent, or
// the user must be asked (an input request), or the call has blocked long enough.
type driver struct {
	s   *Server
	mon *monitor
	// ctx is the tool call's: it ends when the call is cancelled or superseded.
	ctx context.Context
	// work is ctx bounded by the deadline: every GitHub call of this tool call uses it, so that
	// no retry, rate-limit wait or hung request outlives the call.
	work     context.Context
	stopWork context.CancelFunc
	req      mcp.CallToolRequest
	rounds   int
	deadline time.Time
	failures int
	// notBefore: GitHub asked for no request before this time (the token's gate says so too).
	notBefore time.Time
	// toAgent hands the next question to the agent instead of eliciting it (the user dismissed
	// the prompt, or the client cannot elicit).
	toAgent bool
	// noSampling and noElicitation: the client refused or failed such a request in this call;
	// the rest of the call takes the path of a client without the capability.
	noSampling, noElicitation bool
	beat                      *heartbeat
	// categorized: the reply about to be posted already had its category refined.
	categorized bool
	// once: the driver runs for pr_monitor_next_step(monitor_id=all) and never waits for the
	// watcher: with no new snapshot (or GitHub work held back) it is idle. Unless deliver, it
	// also stops short of handing anything to the agent: reached says it got there.
	once, deliver, idle, reached bool
	// ownBeat: the heartbeat is this driver's own (a monitor_id=all call shares its call's).
	ownBeat bool
}

func (s *Server) newDriver(ctx context.Context, mon *monitor, req mcp.CallToolRequest, rounds int) *driver {
	deadline, inTask := s.callDeadline(ctx, req)
	work, stop := context.WithDeadline(ctx, deadline)
	// Inside a task nothing is asked of the client (tasks.go): the agent gets questions and tasks.
	d := &driver{s: s, mon: mon, ctx: ctx, work: work, stopWork: stop, req: req, rounds: rounds, deadline: deadline,
		toAgent: inTask, noSampling: inTask}
	d.startHeartbeat()
	d.ownBeat = d.beat != nil
	return d
}

// newOnceDriver drives mon for a monitor_id=all call: by that call's deadline, with its heartbeat.
func (s *Server) newOnceDriver(ctx context.Context, mon *monitor, req mcp.CallToolRequest, rounds int, deadline time.Time, beat *heartbeat, deliver bool) *driver {
	work, stop := context.WithDeadline(ctx, deadline)
	inTask := req.Params.Task != nil // as newDriver: inside a task nothing is asked of the client
	return &driver{s: s, mon: mon, ctx: ctx, work: work, stopWork: stop, req: req, rounds: rounds, deadline: deadline,
		beat: beat, once: true, deliver: deliver, toAgent: inTask, noSampling: inTask}
}

// close ends the call's progress and releases its deadline; the result goes out after it.
func (d *driver) close() {
	if d.beat != nil && d.ownBeat {
		d.beat.close()
	}
	d.stopWork()
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
			return d.cancelled(), nil
		}
		var err error
		switch act.Kind {
		case statemachine.ActionServer:
			if res := d.holdOff(act); res != nil {
				return res, nil
			}
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
			if d.once && !d.deliver {
				d.reached = true
				return &mcp.CallToolResult{}, nil
			}
			if d.once && !d.s.quietUntil().IsZero() {
				d.idle = true // monitor_id=all: the question waits, the other pull requests go on
				return &mcp.CallToolResult{}, nil
			}
			if res := d.holdForQuiet(act); res != nil {
				return res, nil
			}
			return d.ask(act)
		case statemachine.ActionExecute:
			if d.once && !d.deliver {
				d.reached = true
				return &mcp.CallToolResult{}, nil
			}
			return d.execute(act)
		default: // stop, merged
			d.s.unwatch(d.mon) // nothing more to watch
			if d.once && !d.deliver {
				d.reached = true
				return &mcp.CallToolResult{}, nil
			}
			d.mon.endSeen()
			return d.result(d.output(act)), nil
		}
		if err != nil {
			return toolError(err.Error()), nil
		}
	}
}

// serverAction does GitHub work for the machine and feeds the outcome back. The work is detached
// from the call's cancellation (a superseded call must not leave a reply half-posted and reported
// as failed) but not from its deadline. Work that failed only because the deadline came or GitHub
// asked to wait is not GitHub's verdict on it: the machine is not told, the action stays pending
// and runs again when allowed (every write checks first whether an earlier attempt landed).
func (d *driver) serverAction(req statemachine.ServerRequest) (statemachine.Action, error) {
	gh, err := d.s.github(d.work)
	if err != nil {
		return statemachine.Action{}, fmt.Errorf("%s", githubCause(err))
	}
	end := time.Now().Add(serverActionTimeout)
	if d.deadline.Before(end) {
		end = d.deadline
	}
	ctx, cancel := context.WithDeadline(context.WithoutCancel(d.ctx), end)
	defer cancel()
	out := effects.Do(ctx, gh, effects.Work{PR: d.mon.ref, Request: req, Now: d.s.cfg.Now(), Reviewers: d.s.cfg.reviewers()})
	if out.Postponed {
		if out.RateLimit != nil {
			d.waitFor(out.RateLimit)
		}
		d.mon.state.Log(d.mon.id, "github", req.Describe+" postponed ("+out.Why()+")", nil)
		return d.mon.pending(), nil
	}
	d.mon.state.Log(d.mon.id, "github", req.Describe, out.Input.Outcome)
	return d.mon.step(d.s.cfg.Now(), out.Input)
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
	st := requestState{Monitor: d.mon.id, Kind: inputCategory, Rounds: d.rounds + 1, Text: req.ThreadID}
	params := categoryParams(body, path, req.Marker.Category)
	res, _ := d.roundTrip(st, inputRequest{sample: &params}, func() (*mcp.CallToolResult, error) { return nil, nil })
	return res
}

// ask elicits the question from the user when the client can, else hands it to the agent.
func (d *driver) ask(act statemachine.Action) (*mcp.CallToolResult, error) {
	if d.toAgent || !d.canElicit() {
		out := d.output(act)
		switch {
		case act.Message != "":
		case d.noElicitation:
			out.Message = "The host could not show this question to the user (it refused or failed the prompt): ask the user and answer with user_chose."
		case d.toAgent:
			out.Message = "Ask the user this question and answer with user_chose."
		}
		return d.result(out), nil
	}
	if d.rounds >= d.s.cfg.RoundTrips {
		return d.result(d.again(act)), nil
	}
	st := requestState{Monitor: d.mon.id, Kind: inputElicit, Seq: int64(act.Question.Seq), Rounds: d.rounds + 1}
	params := elicitParams(*act.Question, d.summary(), server.RequestProtocolVersion(d.ctx))
	return d.roundTrip(st, inputRequest{elicit: &params}, func() (*mcp.CallToolResult, error) { return d.ask(act) })
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
	st := requestState{Monitor: d.mon.id, Kind: kind, Seq: d.taskStamp(), Rounds: d.rounds + 1}
	return d.roundTrip(st, inputRequest{sample: &params}, func() (*mcp.CallToolResult, error) { return d.execute(act) })
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
			params := classifyParams(q, a.text)
			return d.roundTrip(st, inputRequest{sample: &params}, func() (*mcp.CallToolResult, error) { return d.afterElicit(q, a) })
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

// canElicit: the client declared form elicitation (an empty elicitation capability means form,
// as it did before URL mode existed) and has not refused a prompt in this call. A client that
// declared URL mode only is never sent a form.
func (d *driver) canElicit() bool {
	caps := clientCaps(d.ctx)
	if d.noElicitation || caps == nil || caps.Elicitation == nil {
		return false
	}
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

func (d *driver) canSample() bool {
	caps := clientCaps(d.ctx)
	return !d.noSampling && caps != nil && caps.Sampling != nil
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
