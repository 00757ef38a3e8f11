package mcpserver

import (
	"context"
	"fmt"

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
	mctx, mdone := m.begin(callCtx)
	d := s.newOnceDriver(mctx, m, req, st.Rounds, deadline, beat, true)
	res, err := d.resume(st)
	d.close()
	mdone()
	if err != nil || !d.idle {
		s.served(m)
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
