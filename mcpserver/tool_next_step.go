package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// handleNextStep reads top-down: parse the call, find the monitor, drive it, render where it
// stopped. monitor_id=all goes to the scheduler (all.go), and so does an answer to an action the
// scheduler handed out.
func (s *Server) handleNextStep(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, release := s.taskContext(ctx, req)
	defer release()
	step, err := s.parseNextStep(req)
	if err != nil {
		return contract.ToolError(err.Error()), nil
	}
	if step.monitorID == allID {
		return s.sched.next(ctx, req, step), nil
	}
	m, err := s.findMonitor(step)
	if err != nil {
		return contract.ToolError(err.Error()), nil
	}
	if step.isAnswer() && m.ServedByAll() {
		return s.sched.answer(ctx, req, m, step), nil
	}
	call, end := s.beginCall(ctx, req, m.Begin, func() string { return s.summary(m) })
	defer end()
	d := driver.New(call.ctx, host{s}, call.driverCall(), m, driver.WaitForNews, step.rounds())
	defer d.Close()
	return s.render(m, d.Start(step.resume, step.input), false), nil
}

// findMonitor is the monitor a call names, resumed from the state directory when an earlier
// process saved it.
func (s *Server) findMonitor(n nextStep) (*monitor.Monitor, error) {
	m, ok, err := s.mons.Lookup(n.monitorID)
	switch {
	case err != nil:
		return nil, fmt.Errorf("monitor %q cannot be resumed: %s", n.monitorID, text.Error(err))
	case !ok:
		return nil, errors.New(contract.UnknownMonitorToDrive(n.monitorID))
	case n.resume != nil && n.resume.Monitor != m.ID:
		return nil, fmt.Errorf("%w: it belongs to another monitor", driver.ErrBadRequestState)
	}
	return m, nil
}

// A pr_monitor_next_step call as the server reads it, whichever way it goes (one monitor, or
// monitor_id=all).

// nextStep is a pr_monitor_next_step call, parsed: the monitor it names and what it brings, the
// agent's event as the machine's input or, for a call the client retried with the answers to its
// input requests, the sealed state of those requests.
type nextStep struct {
	monitorID string
	input     statemachine.Input
	resume    *driver.RequestState
}

// parseNextStep reads a call's arguments, and opens the request state of a retried call.
func (s *Server) parseNextStep(req mcp.CallToolRequest) (nextStep, error) {
	var in contract.NextStepInput
	if err := req.BindArguments(&in); err != nil {
		return nextStep{}, fmt.Errorf("bad arguments: %w", err)
	}
	step := nextStep{monitorID: in.MonitorID}
	if req.Params.RequestState != "" || len(req.Params.InputResponses) > 0 {
		st, err := s.seal.Open(req.Params.RequestState)
		if err != nil {
			return nextStep{}, err
		}
		step.resume = &st
		return step, nil
	}
	input, err := contract.NextStepEvent(in)
	if err != nil {
		return nextStep{}, err
	}
	step.input = input
	return step, nil
}

// isAnswer: the agent answers a question or reports a task done (its event is not ready).
func (n nextStep) isAnswer() bool {
	return n.resume == nil && !(n.input.Kind == statemachine.InputEvent && n.input.Event == statemachine.EventReady)
}

// rounds is how many input round trips the call made before it was retried.
func (n nextStep) rounds() int {
	if n.resume == nil {
		return 0
	}
	return n.resume.Rounds
}
