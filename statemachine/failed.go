package statemachine

import (
	"fmt"

	"github.com/prmonitor/prmonitor/elicitation"
)

// askFailed asks the user what to do about a server-side action that failed (the flow has moved
// to its action_failed node), instead of retrying it in a loop. skippable offers skipping the
// current comment.
func (s *step) askFailed(req ServerRequest, o Outcome, skippable bool) (Action, error) {
	s.pos.Retry = &req
	values := []elicitation.Value{elicitation.Retry}
	if skippable {
		values = append(values, elicitation.Skip)
	}
	values = append(values, elicitation.HandleMyself, elicitation.Stop)
	return s.ask(elicitation.QActionFailed, withCause("Could not "+req.Describe, o.Error), values, nil)
}

// failedAnswer handles the action_failed question.
func (s *step) failedAnswer(v elicitation.Value) (Action, error) {
	req := s.pos.Retry
	s.retry = req
	switch v {
	case elicitation.Retry:
		s.pos.Retry = nil
		if s.pos.Node.Flow() == FlowReady { // a merge is only ever built by the ready flow's handler
			return s.retryReady(*req)
		}
		if err := s.returnTo(serverNode(s.pos.Node.Flow(), req.Kind)); err != nil {
			return Action{}, err
		}
		return s.server(*req), nil
	case elicitation.Skip:
		s.pos.Retry = nil
		s.pos.Comments.mark(s.current().ID, handledSkipped)
		return s.nextThread(TCommentsSkip, "Skipped.")
	case elicitation.HandleMyself:
		if s.pos.Node.Flow() == FlowComments {
			s.pos.Retry = nil
			s.pos.Comments.mark(s.current().ID, handledSkipped)
			return s.nextThread(TCommentsLeaveThread, "Leaving that comment to you.")
		}
		return s.acknowledge("Leaving it to you.")
	}
	return Action{}, fmt.Errorf("statemachine: action_failed has no handler for %q (a bug)", v)
}
