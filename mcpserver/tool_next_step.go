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
