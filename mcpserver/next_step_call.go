package mcpserver

import (
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/statemachine"
)

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
