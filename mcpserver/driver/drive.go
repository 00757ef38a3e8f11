package driver

import (
	"context"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// freshFor is how long the snapshot taken by pr_monitor_start stands in for the first poll.
const freshFor = 30 * time.Second

// Driver runs one monitor's machine inside a tool call until there is something for the agent,
// or the user must be asked (an input request), or the call has waited long enough. It returns
// where it stopped as an outcome, which the caller renders.
type Driver struct {
	h    Host
	mon  *monitor.Monitor
	call Call
	pace Pace
	// ctx is the call's on this monitor: it ends when the call is cancelled or superseded.
	ctx context.Context
	// work is ctx bounded by the call's deadline: every GitHub call of this tool call uses it, so
	// that no retry, rate-limit wait or hung request outlives the call.
	work     context.Context
	stopWork context.CancelFunc
	// rounds counts the input round trips (elicitation, sampling) of this tool call so far;
	// responses are the client's answers to the last one.
	rounds    int
	responses mcp.InputResponses
	// notBefore: GitHub asked for no request before this time (the token's gate says so too).
	notBefore time.Time
	client    clientPaths
	// categorized: the reply about to be posted already had its category refined.
	categorized bool
}

// Pace is how a driver goes about its monitor.
type Pace int

const (
	// WaitForNews: a call on one pull request. It waits for the watcher's news (and out rate
	// limits and quiet hours) until the call's deadline, and hands out what the monitor comes to.
	WaitForNews Pace = iota
	// HandOutNow: monitor_id=all handing out one monitor's action, or taking an answer to it. It
	// never waits: with nothing new to go on, it is idle.
	HandOutNow
	// AdvanceOnly: monitor_id=all scanning its monitors. It advances one as far as it goes
	// without waiting and without the agent, and stops before handing anything out (awaiting).
	AdvanceOnly
)

// clientPaths are the ways to the user and the host's model this call still takes.
type clientPaths struct {
	// dismissed: the user dismissed the prompt in this call; the rest of the call hands the
	// question to the agent (who may not choose a merge for them: consent.go).
	dismissed bool
	// taskCannotAsk: the call runs as an MCP task that has no way to ask the client
	// (taskAsksClient); its questions go to the agent, who relays them.
	taskCannotAsk bool
	// noElicitation, noSampling: the client refused or failed such a request in this call (or the
	// call runs as a task); the rest of the call takes the path of a client without it.
	noElicitation, noSampling bool
}

// Outcome is where driving a monitor stopped.
type Outcome struct {
	Kind OutcomeKind
	// Out is the agent's answer (delivered, ended, deadline, cancelled).
	Out contract.ActionOutput
	// Request is an input request put to a 2026-07-28 client (delivered), sent as it is.
	Request *mcp.CallToolResult
	// Err is what went wrong (failed), in one line.
	Err string
}

// OutcomeKind is which way a driver stopped.
type OutcomeKind int

const (
	// delivered: something for the agent (a task, a question, a note), or an input request for
	// the client.
	delivered OutcomeKind = iota + 1
	// ended: the monitor ended (merged, closed, stopped), and the answer says so.
	ended
	// deadline: the call's time ran out (or too many calls wait, or quiet hours hold the
	// question): the answer is polling, and the wait goes on in the next call.
	deadline
	// cancelled: the call was superseded or cancelled; the answer is what the monitor waits on.
	cancelled
	// Failed: a tool error (GitHub refused for good, the machine refused the input, a stale
	// request state).
	Failed
	// awaiting (advanceOnly): the monitor waits on the agent or the user; nothing was handed out.
	awaiting
	// idle (a driver that does not wait): there is nothing to do without waiting.
	idle
)

// Answers reports whether the outcome answers the call (render renders it).
func (o Outcome) Answers() bool { return o.Kind != awaiting && o.Kind != idle }

func failure(err error) Outcome { return Outcome{Kind: Failed, Err: text.Error(err)} }

// New drives m within call c, for the server h; ctx is the call's on m (from m's call slot).
// rounds is how many input round trips the call made before (a retried call).
func New(ctx context.Context, h Host, c Call, m *monitor.Monitor, p Pace, rounds int) *Driver {
	work, stop := context.WithDeadline(ctx, c.Deadline)
	// Inside a 2025-11-25 task a question goes to the client tied to the task when the era lets it
	// (taskAsksClient), else to the agent, and the host's model is not asked (its work goes to the
	// agent). A 2026-07-28 task asks the client inside the task, like a plain call.
	return &Driver{h: h, mon: m, call: c, pace: p, ctx: ctx, work: work, stopWork: stop, rounds: rounds, responses: c.Responses,
		client: clientPaths{taskCannotAsk: c.Legacy && !taskAsksClient(ctx), noSampling: c.Legacy}}
}

// Close releases the call's deadline.
func (d *Driver) Close() { d.stopWork() }

// run feeds the first input and keeps going. A ready during a task this process never handed to
// the agent says so: after a restart the agent may not have the task, and gets it back.
func (d *Driver) run(in statemachine.Input) Outcome {
	if in.Kind == statemachine.InputEvent && in.Event == statemachine.EventReady {
		in.TaskUnseen = !d.mon.TaskHandedOut()
	}
	act, err := d.mon.Step(d.h.Now(), in)
	if err != nil {
		return failure(d.refusedChoice(err))
	}
	return d.Loop(act)
}

// Advance moves a monitor on by what is there, for a monitor_id=all scan: a fresh monitor starts
// (as ready would), one that polls takes the watcher's news, one with GitHub work does it.
func (d *Driver) Advance() Outcome {
	if d.mon.Position().Node.State() == statemachine.StateIdle {
		return d.run(statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}))
	}
	act := d.mon.Pending()
	if act.Kind != statemachine.ActionPolling && act.Kind != statemachine.ActionServer {
		return Outcome{Kind: awaiting}
	}
	return d.Loop(d.mon.PendingPoll())
}

// Loop drives the machine from act until the call has its answer.
func (d *Driver) Loop(act statemachine.Action) Outcome {
	for {
		if d.ctx.Err() != nil {
			return d.cancelled()
		}
		var err error
		switch act.Kind {
		case statemachine.ActionServer:
			if o, stop := d.holdOff(act); stop {
				return o
			}
			if o, asked := d.refineCategory(act); asked {
				return o
			}
			act, err = d.serverAction(*act.Server)
		case statemachine.ActionPolling:
			var o Outcome
			var stop bool
			if act, o, stop = d.poll(act); stop {
				return o
			}
		case statemachine.ActionAskUser:
			if d.pace == AdvanceOnly {
				return Outcome{Kind: awaiting}
			}
			if d.pace == HandOutNow && !d.h.QuietUntil().IsZero() {
				return Outcome{Kind: idle} // monitor_id=all: the question waits, the other pull requests go on
			}
			if next, superseded := d.newsBeforeAsking(act); superseded {
				act = next // the news took away what the question offered: on with what it calls for
				continue
			}
			if o, held := d.holdForQuiet(act); held {
				return o
			}
			return d.ask(act)
		case statemachine.ActionExecute:
			if d.pace == AdvanceOnly {
				return Outcome{Kind: awaiting}
			}
			return d.execute(act)
		default: // stop, merged
			d.h.Unwatch(d.mon) // nothing more to watch
			if d.pace == AdvanceOnly {
				return Outcome{Kind: awaiting}
			}
			d.mon.EndSeen()
			return Outcome{Kind: ended, Out: d.output(act)}
		}
		if err != nil {
			return failure(err)
		}
	}
}

// deliver is an outcome that hands out to the agent.
func deliver(out contract.ActionOutput) Outcome { return Outcome{Kind: delivered, Out: out} }

// Start drives the monitor from a next_step call: resume, the sealed state of a call retried with
// the answers to its input requests, or else the agent's input in (an answer of the agent's is
// marked as a relay or its own: consent.go).
func (d *Driver) Start(resume *RequestState, in statemachine.Input) Outcome {
	if resume != nil {
		return d.resume(*resume)
	}
	return d.run(d.agentAnswer(in))
}
