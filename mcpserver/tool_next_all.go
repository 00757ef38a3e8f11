package mcpserver

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/statemachine"
)

// allMonitors is pr_monitor_next_step(monitor_id="all"): one call that waits on every monitor
// and returns the next action of whichever pull request needs attention first.
//
// Order: of the actions not handed out yet, the one that has waited longest goes first (then by
// id); an action handed out and still open comes back only when nothing new came by the call's
// deadline (least recently handed out first), so no pull request starves another. Answers
// (user_chose, a task's completion event) sent with monitor_id=all go to the pull request of the
// last action this server handed out for "all" (each action names it in monitor_id and pr), or,
// when this process handed none out, to the one monitor whose saved open action the answer fits; an
// answer may also name that monitor_id: it goes on with that pull request while there is something
// to do at once, then sends the agent back to all.
type allMonitors struct {
	mu   sync.Mutex
	last string // the monitor of the last action handed out
	call *call  // the monitor_id=all call in progress: a new one supersedes it
}

// begin makes the calling tool call the monitor_id=all call, superseding the one before.
func (a *allMonitors) begin(parent context.Context) (context.Context, func()) {
	a.mu.Lock()
	prev := a.call
	ctx, cancel := context.WithCancel(parent)
	c := &call{cancel: cancel, done: make(chan struct{})}
	a.call = c
	a.mu.Unlock()
	if prev != nil {
		prev.cancel()
		select {
		case <-prev.done:
		case <-time.After(30 * time.Second):
		}
	}
	return ctx, func() {
		cancel()
		a.mu.Lock()
		if a.call == c {
			a.call = nil
		}
		a.mu.Unlock()
		close(c.done)
	}
}

func (a *allMonitors) handedOut(id string) {
	a.mu.Lock()
	a.last = id
	a.mu.Unlock()
}

func (a *allMonitors) lastID() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// handleNextAll runs pr_monitor_next_step(monitor_id="all").
func (s *Server) handleNextAll(ctx context.Context, req mcp.CallToolRequest, in NextStepInput) (*mcp.CallToolResult, error) {
	input, err := machineInput(in)
	if err != nil {
		return toolError(err.Error()), nil
	}
	callCtx, done := s.every.begin(ctx)
	defer done()
	deadline, _ := s.callDeadline(ctx, req)
	beat := s.allHeartbeat(callCtx, req)
	if beat != nil {
		defer beat.close()
	}
	if !(input.Kind == statemachine.InputEvent && input.Event == statemachine.EventReady) {
		m, err := s.answerTarget(input)
		if err != nil {
			return toolError(err.Error()), nil
		}
		if res, handled, err := s.driveOnce(callCtx, m, req, 0, deadline, beat, func(d *driver) (*mcp.CallToolResult, error) { return d.run(input) }); handled {
			return res, err
		}
	}
	return s.waitAll(callCtx, req, deadline, beat)
}

// waitAll scans the monitors until one has something for the agent, waiting for the watcher's
// updates between scans, until the deadline.
func (s *Server) waitAll(ctx context.Context, req mcp.CallToolRequest, deadline time.Time, beat *heartbeat) (*mcp.CallToolResult, error) {
	w, err := s.watcher()
	if err != nil {
		return toolError(err.Error()), nil
	}
	updates, unsubscribe := w.Subscribe()
	defer unsubscribe()
	ms, skipped := s.everyMonitor()
	for _, m := range ms {
		if !m.isEnded() {
			w.Add(m.ref)
		}
	}
	var release func()
	tick := time.NewTicker(min(s.cfg.ProgressEvery, time.Second))
	defer tick.Stop()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		if ctx.Err() != nil {
			return s.allResult("This call was superseded or cancelled; call pr_monitor_next_step(monitor_id=\"all\", event=\"ready\") to continue.", skipped), nil
		}
		res, live, err := s.scanAll(ctx, req, deadline, beat)
		if res != nil || err != nil {
			return res, err
		}
		if live == 0 {
			return s.allEnded(skipped), nil
		}
		if release == nil && req.Params.Task == nil { // a task holds no worker of the transport
			var ok bool
			if release, ok = s.waiting.acquire(); !ok {
				return s.allResult(fmt.Sprintf("Still watching %d pull requests; %d calls are already waiting, the most this server lets wait at once. "+
					"Call again.", live, s.waiting.size()), skipped), nil
			}
			defer release()
		}
		if release == nil {
			release = func() {}
		}
		select {
		case <-ctx.Done():
		case <-updates:
		case <-tick.C:
		case <-timer.C:
			// Nothing new by the deadline: an action handed out before and still open comes back
			// (the agent may have lost it), else polling.
			if res, err := s.handOut(ctx, req, deadline, beat, s.firstWaiting(s.all(), true)); res != nil || err != nil {
				return res, err
			}
			return s.allResult(fmt.Sprintf("Still watching %d pull requests; nothing needs you yet. "+
				"Call pr_monitor_next_step(monitor_id=\"all\", event=\"ready\") to keep waiting.", live), skipped), nil
		}
	}
}

// scanAll advances every monitor that has news (a snapshot it has not seen, GitHub work due, a
// fresh start) as far as it goes without the agent, then hands out the action of the monitor that
// has waited longest. live counts the monitors not ended.
func (s *Server) scanAll(ctx context.Context, req mcp.CallToolRequest, deadline time.Time, beat *heartbeat) (*mcp.CallToolResult, int, error) {
	w, err := s.watcher()
	if err != nil {
		return toolError(err.Error()), 0, nil
	}
	ms := s.all()
	live := 0
	for _, m := range ms {
		if m.isEnded() {
			continue
		}
		live++
		m.noteWaiting(s.cfg.Now())
		if !m.hasNews(w) {
			continue
		}
		mctx, done, ok := m.tryBegin(ctx)
		if !ok {
			continue // a call waits on this pull request alone
		}
		d := s.newOnceDriver(mctx, m, req, 0, deadline, beat, false)
		res, err := d.runOnce()
		d.close()
		done()
		if err != nil {
			return nil, live, err
		}
		if res != nil && res.IsError {
			return res, live, nil // GitHub refused for good (a revoked token): say so
		}
	}
	res, err := s.handOut(ctx, req, deadline, beat, s.firstWaiting(ms, false))
	return res, live, err
}

// handOut hands monitor next's action to the agent (nil: nothing to hand out).
func (s *Server) handOut(ctx context.Context, req mcp.CallToolRequest, deadline time.Time, beat *heartbeat, next *monitor) (*mcp.CallToolResult, error) {
	if next == nil {
		return nil, nil
	}
	mctx, done, ok := next.tryBegin(ctx)
	if !ok {
		return nil, nil
	}
	defer done()
	if soon := time.Now().Add(time.Second); deadline.Before(soon) {
		deadline = soon // at the call's deadline: room to hand the action out
	}
	d := s.newOnceDriver(mctx, next, req, 0, deadline, beat, true)
	defer d.close()
	res, err := d.loop(next.pending())
	if err != nil || !d.idle {
		s.served(next)
		return res, err
	}
	return nil, nil
}

// runOnce advances a monitor by what is there: a fresh monitor starts (as ready would), one that
// polls takes the watcher's news, one with GitHub work does it.
func (d *driver) runOnce() (*mcp.CallToolResult, error) {
	if d.mon.position().Node.State() == statemachine.StateIdle {
		return d.run(statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}))
	}
	act := d.mon.pending()
	if act.Kind != statemachine.ActionPolling && act.Kind != statemachine.ActionServer {
		return nil, nil
	}
	return d.loop(d.mon.pendingPoll())
}

// allOutput is an action handed out by monitor_id=all: it names its pull request, and the call
// to make next goes on with all.
func allOutput(out ActionOutput) ActionOutput {
	out.Next = strings.Replace(out.Next, fmt.Sprintf("monitor_id=%q", out.MonitorID), `monitor_id="all"`, 1)
	return out
}

// allResult is monitor_id=all's polling action: nothing needs the agent yet. In quiet hours it says
// until when questions wait.
func (s *Server) allResult(msg string, skipped []string) *mcp.CallToolResult {
	if len(skipped) > 0 {
		msg += " Not watched here: " + clipText(strings.Join(skipped, "; "), 400) + "."
	}
	out := ActionOutput{Action: string(statemachine.ActionPolling), MonitorID: "all", State: string(statemachine.StatePolling),
		Message: msg, Next: `pr_monitor_next_step(monitor_id="all", event="ready")`}
	if until := s.quietUntil(); !until.IsZero() {
		out.QuietUntil = s.stamp(until)
		out.Message += " Quiet hours until " + s.localTime(until) + ": questions wait till then; don't ask the user meanwhile."
	}
	return structured(out)
}

// allEnded is monitor_id=all's answer when no monitor is left.
func (s *Server) allEnded(skipped []string) *mcp.CallToolResult {
	msg := "No pull request is being monitored: call pr_monitor_start_all or pr_monitor_start to watch some."
	if len(skipped) > 0 {
		msg += " Not watched here: " + clipText(strings.Join(skipped, "; "), 400) + "."
	}
	return structured(ActionOutput{Action: string(statemachine.ActionStop), MonitorID: "all", State: string(statemachine.StateStopped), Message: msg})
}

// allHeartbeat is the progress clock of a monitor_id=all call, when the client asked for progress.
func (s *Server) allHeartbeat(ctx context.Context, req mcp.CallToolRequest) *heartbeat {
	meta := req.Params.Meta
	if meta == nil || meta.ProgressToken == nil {
		return nil
	}
	srv := server.ServerFromContext(ctx)
	if srv == nil {
		return nil
	}
	h := &heartbeat{ctx: ctx, srv: srv, token: meta.ProgressToken, text: func() string { return s.allSummary() },
		stop: make(chan struct{}), done: make(chan struct{})}
	go h.run(s.cfg.ProgressEvery)
	return h
}

// allSummary is one line about every monitor: how many, how many wait on the agent.
func (s *Server) allSummary() string {
	ms := s.all()
	live, waiting := 0, 0
	for _, m := range ms {
		m.mu.Lock()
		if !m.ended {
			live++
			if !m.waitingSince.IsZero() {
				waiting++
			}
		}
		m.mu.Unlock()
	}
	return fmt.Sprintf("watching %d pull requests · %d waiting on you", live, waiting)
}
