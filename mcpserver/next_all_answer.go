package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Answers sent to next_step "all": routed to the pull request of the action handed out.

// handleNextAllCall is pr_monitor_next_step(monitor_id="all"), including the retry of a call that
// put an input request to the client (the 2026-07-28 era): the sealed state names the monitor.
func (s *Server) handleNextAllCall(ctx context.Context, req mcp.CallToolRequest, in NextStepInput) (*mcp.CallToolResult, error) {
	if req.Params.RequestState == "" && len(req.Params.InputResponses) == 0 {
		return s.handleNextAll(ctx, req, in)
	}
	st, err := s.seal.open(req.Params.RequestState)
	if err != nil {
		return toolError(err.Error()), nil
	}
	m, ok, err := s.lookup(st.Monitor)
	if err != nil || !ok {
		return toolError(fmt.Sprintf("%v: its monitor cannot be resumed", ErrBadRequestState)), nil
	}
	callCtx, done := s.every.begin(ctx)
	defer done()
	deadline, _ := s.callDeadline(ctx, req)
	beat := s.allHeartbeat(callCtx, req)
	if beat != nil {
		defer beat.close()
	}
	if res, handled, err := s.driveOnce(callCtx, m, req, st.Rounds, deadline, beat, func(d *driver) (*mcp.CallToolResult, error) { return d.resume(st) }); handled {
		return res, err
	}
	return s.waitAll(callCtx, req, deadline, beat)
}

// servedByAll reports whether monitor_id=all handed out an action of this monitor.
func (m *monitor) servedByAll() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.servedAt.IsZero()
}

// answerFromAll takes the answer to an action monitor_id=all handed out, sent with the action's
// own monitor_id: it goes on with that pull request while there is something to do at once (GitHub
// work, the next task or question), and returns instead of waiting on it alone, so the agent goes
// back to waiting on all of them.
func (s *Server) answerFromAll(ctx context.Context, req mcp.CallToolRequest, m *monitor, input statemachine.Input) (*mcp.CallToolResult, error) {
	callCtx, done := m.begin(ctx)
	defer done()
	deadline, _ := s.callDeadline(ctx, req)
	d := s.newOnceDriver(callCtx, m, req, 0, deadline, nil, true)
	res, err := d.run(input)
	d.close()
	if err != nil || !d.idle {
		s.served(m)
		return res, err
	}
	return s.allResult(fmt.Sprintf("Taken; %s needs nothing more now. Call pr_monitor_next_step(monitor_id=\"all\", event=\"ready\") to wait on every pull request.", m.ref), nil), nil
}

// answerTarget is the monitor an answer sent with monitor_id=all goes to: the one of the last
// action handed out; when this process handed none out (it restarted since, say), the one monitor
// whose open action the answer fits, read from the saved positions (a question offering the
// choice, at the seq given; a task expecting the event). Several or none that fit is an error
// naming them: the agent sends the answer with the monitor_id its action named.
func (s *Server) answerTarget(input statemachine.Input) (*monitor, error) {
	if id := s.every.lastID(); id != "" {
		m, ok, err := s.lookup(id)
		if err != nil || !ok {
			return nil, fmt.Errorf("monitor %q (the last action handed out for all) cannot be resumed", id)
		}
		return m, nil
	}
	ms, _ := s.everyMonitor()
	var fits, offers []*monitor
	for _, m := range ms {
		if m.isEnded() {
			continue
		}
		act := m.pending()
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
		ids = append(ids, m.id)
	}
	slices.Sort(ids)
	return nil, fmt.Errorf("monitor_id=all cannot tell which pull request %s answers (%d open actions fit it: %s): "+
		"send it with the monitor_id the action named", what, len(fits), strings.Join(ids, ", "))
}

// driveOnce drives m by step (a run or a resume) inside a monitor_id=all call. handled is false
// when m had nothing for the agent at once: the call goes on to wait on every monitor.
func (s *Server) driveOnce(ctx context.Context, m *monitor, req mcp.CallToolRequest, rounds int, deadline time.Time, beat *heartbeat,
	step func(*driver) (*mcp.CallToolResult, error)) (res *mcp.CallToolResult, handled bool, err error) {
	mctx, mdone := m.begin(ctx)
	d := s.newOnceDriver(mctx, m, req, rounds, deadline, beat, true)
	res, err = step(d)
	d.close()
	mdone()
	if err != nil || !d.idle {
		s.served(m)
		return res, true, err
	}
	return nil, false, nil
}
