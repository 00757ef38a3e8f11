package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// allID is the monitor_id that waits on every monitor at once.
const allID = "all"

// scheduler runs pr_monitor_next_step(monitor_id="all"): one call that waits on every monitor and
// returns the next action of whichever pull request needs attention first.
//
// Order (all_order.go): of the actions not handed out yet, the one that has waited longest goes
// first (then by id); an action handed out and still open comes back only when nothing new came by
// the call's deadline (least recently handed out first), so no pull request starves another.
// Answers (user_chose, a task's completion event) sent with monitor_id=all go to the pull request
// of the last action this server handed out for "all" (each action names it in monitor_id and
// pr), or, when this process handed none out, to the one monitor whose saved open action the
// answer fits; an answer may also name that monitor_id: it goes on with that pull request while
// there is something to do at once, then sends the agent back to all.
type scheduler struct {
	s *Server
	// calls holds the monitor_id=all call in progress: a new one supersedes it.
	calls monitor.CallSlot

	mu   sync.Mutex
	last string // the monitor of the last action handed out
}

// begin makes the calling tool call the monitor_id=all call, superseding the one before.
func (a *scheduler) begin(parent context.Context) (context.Context, func()) {
	ctx, done, _ := a.calls.Supersede(parent)
	return ctx, done
}

// waiting reports whether a monitor_id=all call waits (it hands out every monitor's action).
func (a *scheduler) waiting() bool { return a.calls.Busy() }

// next answers a monitor_id=all call: it takes the call's answer (or its retried input
// requests) to the pull request it is for, then waits for whichever needs the agent next.
func (a *scheduler) next(ctx context.Context, req mcp.CallToolRequest, step nextStep) *mcp.CallToolResult {
	var target *monitor.Monitor
	if step.resume != nil {
		m, ok, err := a.s.mons.Lookup(step.resume.Monitor)
		if err != nil || !ok {
			return contract.ToolError(fmt.Sprintf("%v: its monitor cannot be resumed", driver.ErrBadRequestState))
		}
		target = m
	}
	call, end := a.s.beginCall(ctx, req, a.begin, a.summary)
	defer end()
	switch {
	case step.resume != nil:
		if res, handled := a.driveOne(call, target, step); handled {
			return res
		}
	case step.isAnswer():
		m, err := a.answerTarget(step.input)
		if err != nil {
			return contract.ToolError(err.Error())
		}
		if res, handled := a.driveOne(call, m, step); handled {
			return res
		}
	}
	return a.wait(call)
}

// answer takes the answer to an action monitor_id=all handed out, sent with the action's own
// monitor_id: it goes on with that pull request while there is something to do at once (GitHub
// work, the next task or question), and returns instead of waiting on it alone, so the agent goes
// back to waiting on all of them.
func (a *scheduler) answer(ctx context.Context, req mcp.CallToolRequest, m *monitor.Monitor, step nextStep) *mcp.CallToolResult {
	call, end := a.s.beginCall(ctx, req, m.Begin, nil)
	defer end()
	if res, handled := a.drive(call.ctx, call, m, step); handled {
		return res
	}
	return a.polling(fmt.Sprintf("Taken; %s needs nothing more now. Call pr_monitor_next_step(monitor_id=\"all\", event=\"ready\") to wait on every pull request.", m.Ref), nil)
}

// driveOne drives m by step inside a monitor_id=all call, superseding a call waiting on m alone.
// handled is false when m had nothing for the agent at once: the call goes on to wait on every
// monitor.
func (a *scheduler) driveOne(call *toolCall, m *monitor.Monitor, step nextStep) (*mcp.CallToolResult, bool) {
	mctx, done := m.Begin(call.ctx)
	defer done()
	return a.drive(mctx, call, m, step)
}

// drive runs step on m without waiting, and renders what it comes to unless it is idle.
func (a *scheduler) drive(ctx context.Context, call *toolCall, m *monitor.Monitor, step nextStep) (*mcp.CallToolResult, bool) {
	d := driver.New(ctx, host{a.s}, call.driverCall(), m, driver.HandOutNow, step.rounds())
	defer d.Close()
	o := d.Start(step.resume, step.input)
	if !o.Answers() {
		return nil, false
	}
	a.served(m)
	return a.s.render(m, o, true), true
}

// wait scans the monitors until one has something for the agent, waiting for the watcher's
// updates between scans, until the deadline.
func (a *scheduler) wait(call *toolCall) *mcp.CallToolResult {
	w, err := a.s.ensureWatcher()
	if err != nil {
		return contract.ToolError(err.Error())
	}
	updates, unsubscribe := w.Subscribe()
	defer unsubscribe()
	ms, skipped := a.s.mons.Every()
	for _, m := range ms {
		if !m.IsEnded() {
			w.Add(m.Ref)
		}
	}
	slotTaken := false
	tick := time.NewTicker(min(a.s.cfg.ProgressEvery, time.Second))
	defer tick.Stop()
	timer := time.NewTimer(time.Until(call.deadline))
	defer timer.Stop()
	for {
		if call.ctx.Err() != nil {
			return a.polling("This call was superseded or cancelled; call pr_monitor_next_step(monitor_id=\"all\", event=\"ready\") to continue.", skipped)
		}
		res, live := a.scan(call)
		if res != nil {
			return res
		}
		if live == 0 {
			return a.ended(skipped)
		}
		if !slotTaken && call.holdsWorker() {
			release, ok := a.s.waiting.acquire()
			if !ok {
				return a.polling(fmt.Sprintf("Still watching %s; %s already waiting, the most this server lets wait at once. "+
					"Call again.", pullRequests(live), text.Count(a.s.waiting.size(), "call is", "calls are")), skipped)
			}
			defer release()
		}
		slotTaken = true
		select {
		case <-call.ctx.Done():
		case <-updates:
		case <-tick.C:
		case <-timer.C:
			// Nothing new by the deadline: an action handed out before and still open comes back
			// (the agent may have lost it), else polling.
			if res := a.handOut(call, nextTurn(a.turns(a.s.mons.ByID()), a.quiet(), true)); res != nil {
				return res
			}
			return a.polling(fmt.Sprintf("Still watching %s; nothing needs you yet. "+
				"Call pr_monitor_next_step(monitor_id=\"all\", event=\"ready\") to keep waiting.", pullRequests(live)), skipped)
		}
	}
}

// scan advances every monitor that has news (a snapshot it has not seen, GitHub work due, a fresh
// start) as far as it goes without the agent, then hands out the action of the monitor that has
// waited longest. live counts the monitors not ended; res is nil when nothing was handed out.
func (a *scheduler) scan(call *toolCall) (res *mcp.CallToolResult, live int) {
	w, err := a.s.ensureWatcher()
	if err != nil {
		return contract.ToolError(err.Error()), 0
	}
	ms := a.s.mons.ByID()
	for _, m := range ms {
		if m.IsEnded() {
			continue
		}
		live++
		m.NoteWaiting(a.s.cfg.Now())
		if !m.HasNews(w) {
			continue
		}
		mctx, done, ok := m.Claim(call.ctx)
		if !ok {
			continue // a call waits on this pull request alone
		}
		d := driver.New(mctx, host{a.s}, call.driverCall(), m, driver.AdvanceOnly, 0)
		o := d.Advance()
		d.Close()
		done()
		if o.Kind == driver.Failed {
			return contract.ToolError(o.Err), live // GitHub refused for good (a revoked token): say so
		}
	}
	return a.handOut(call, nextTurn(a.turns(ms), a.quiet(), false)), live
}

// handOut hands monitor next's action to the agent (nil: nothing to hand out).
func (a *scheduler) handOut(call *toolCall, next *monitor.Monitor) *mcp.CallToolResult {
	if next == nil {
		return nil
	}
	mctx, done, ok := next.Claim(call.ctx)
	if !ok {
		return nil
	}
	defer done()
	d := driver.New(mctx, host{a.s}, call.until(time.Now().Add(time.Second)).driverCall(), next, driver.HandOutNow, 0) // at the deadline: room to hand it out
	defer d.Close()
	o := d.Loop(next.Pending())
	if !o.Answers() {
		return nil
	}
	a.served(next)
	return a.s.render(next, o, true)
}

// served records that the scheduler handed out m's action.
func (a *scheduler) served(m *monitor.Monitor) {
	a.mu.Lock()
	a.last = m.ID
	a.mu.Unlock()
	m.Served(a.s.cfg.Now())
}

// forget forgets the last action handed out, as a restarted process would.
func (a *scheduler) forget() {
	a.mu.Lock()
	a.last = ""
	a.mu.Unlock()
}

func (a *scheduler) lastID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

func (a *scheduler) quiet() bool { return !a.s.quietUntil().IsZero() }

func (a *scheduler) turns(ms []*monitor.Monitor) []monitor.Turn {
	ts := make([]monitor.Turn, len(ms))
	depth := stackDepths(ms)
	for i, m := range ms {
		ts[i] = m.Turn()
		ts[i].Depth = depth[m]
	}
	return ts
}

// answerTarget is the monitor an answer sent with monitor_id=all goes to: the one of the last
// action handed out; when this process handed none out (it restarted since, say), the one monitor
// whose open action the answer fits, read from the saved positions (a question offering the
// choice, at the seq given; a task expecting the event). Several or none that fit is an error
// naming them: the agent sends the answer with the monitor_id its action named.
func (a *scheduler) answerTarget(input statemachine.Input) (*monitor.Monitor, error) {
	if id := a.lastID(); id != "" {
		m, ok, err := a.s.mons.Lookup(id)
		if err != nil || !ok {
			return nil, fmt.Errorf("monitor %q (the last action handed out for all) cannot be resumed", id)
		}
		return m, nil
	}
	ms, _ := a.s.mons.Every()
	var fits, offers []*monitor.Monitor
	for _, m := range ms {
		if m.IsEnded() {
			continue
		}
		act := m.Pending()
		switch {
		case input.Event == statemachine.EventUserChose && act.Kind == statemachine.ActionAskUser && act.Question != nil &&
			(input.QuestionSeq == 0 || input.QuestionSeq == act.Question.Seq):
			fits = append(fits, m)
			if act.Question.Offers(input.Choice) {
				offers = append(offers, m)
			}
		case input.Event != statemachine.EventUserChose && act.Kind == statemachine.ActionExecute && slices.Contains(act.ExpectedEvents, input.Event):
			fits = append(fits, m)
		}
	}
	if len(offers) == 1 {
		return offers[0], nil
	}
	if len(fits) == 1 {
		return fits[0], nil
	}
	what := string(input.Event)
	if len(fits) == 0 {
		return nil, fmt.Errorf("monitor_id=all routes %s to the pull request whose open action it answers, and none has one it fits: "+
			"send it with the monitor_id the action named", what)
	}
	ids := make([]string, 0, len(fits))
	for _, m := range fits {
		ids = append(ids, m.ID)
	}
	slices.Sort(ids)
	return nil, fmt.Errorf("monitor_id=all cannot tell which pull request %s answers (%d open actions fit it: %s): "+
		"send it with the monitor_id the action named", what, len(fits), strings.Join(ids, ", "))
}

// polling is monitor_id=all's polling action: nothing needs the agent yet. In quiet hours it says
// until when questions wait.
func (a *scheduler) polling(msg string, skipped []string) *mcp.CallToolResult {
	if len(skipped) > 0 {
		msg += " Not watched here: " + text.ClipBytes(strings.Join(skipped, "; "), 400) + "."
	}
	out := contract.ActionOutput{Action: string(statemachine.ActionPolling), MonitorID: allID, State: string(statemachine.StatePolling),
		Message: msg, Next: `pr_monitor_next_step(monitor_id="all", event="ready")`}
	if until := a.s.quietUntil(); !until.IsZero() {
		out.QuietUntil = a.s.stamp(until)
		out.Message += " Quiet hours until " + a.s.localTime(until) + ": questions wait till then; don't ask the user meanwhile."
	}
	return contract.Result(out)
}

// ended is monitor_id=all's answer when no monitor is left.
func (a *scheduler) ended(skipped []string) *mcp.CallToolResult {
	msg := "No pull request is being monitored: call pr_monitor_start_all or pr_monitor_start to watch some."
	if len(skipped) > 0 {
		msg += " Not watched here: " + text.ClipBytes(strings.Join(skipped, "; "), 400) + "."
	}
	return contract.Result(contract.ActionOutput{Action: string(statemachine.ActionStop), MonitorID: allID, State: string(statemachine.StateStopped), Message: msg})
}

// summary is one line about every monitor, for a call's progress: how many, how many wait on you.
func (a *scheduler) summary() string {
	live, waiting := 0, 0
	for _, m := range a.s.mons.ByID() {
		if t := m.Turn(); !t.Ended {
			live++
			if !t.Since.IsZero() {
				waiting++
			}
		}
	}
	return fmt.Sprintf("watching %s · %d waiting on you", pullRequests(live), waiting)
}

// pullRequests counts pull requests in words: 1 pull request, 3 pull requests.
func pullRequests(n int) string { return text.Count(n, "pull request", "pull requests") }
