package statemachine

import (
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// enterStale offers to ask approvers whose approval is on an older commit to review again;
// handled is false when the attention is acknowledged.
func (s *step) enterStale(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	row, err := s.fireFirst(TStaleAsk)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	s.pos.Stale = &StaleState{Head: f.HeadSHA, Reviewers: slices.Clone(f.Reviews.StaleApprovals)}
	s.pos.FlowKey = att.Key
	r := s.pos.Stale.Reviewers
	question := fmt.Sprintf("CI is green on %s, but the %s on an older commit.", text.ShortSHA(f.HeadSHA), text.Count(len(r), "approval is", "approvals are")) +
		"\n" + quote("approved before: "+prstatus.JoinNames(r))
	act, err := s.ask(elicitation.QStaleApproval, question, []elicitation.Value{elicitation.RequestReReview, elicitation.SkipReminder,
		elicitation.HandleMyself, elicitation.Stop}, nil)
	return act, true, err
}

func (s *step) staleAnswer(v elicitation.Value) (Action, error) {
	switch v {
	case elicitation.RequestReReview:
		r := s.pos.Stale.Reviewers
		if err := s.fire(TStaleRequestReview); err != nil {
			return Action{}, err
		}
		return s.server(ServerRequest{Kind: ServerRequestReview, Reviewers: slices.Clone(r),
			Describe: "ask " + text.Count(len(r), "reviewer", "reviewers") + " to review the new commits"}), nil
	case elicitation.SkipReminder, elicitation.HandleMyself:
		return s.acknowledge("No reminder for this head.")
	}
	return Action{}, fmt.Errorf("statemachine: stale-approval flow has no handler for %q (a bug)", v)
}

func (s *step) staleOutcome(req ServerRequest, o Outcome) (Action, error) {
	if !o.OK {
		if err := s.fire(TStaleRequestFailed); err != nil {
			return Action{}, err
		}
		return s.askFailed(req, o, false)
	}
	s.pos.Memory.ack(s.pos.FlowKey)
	return s.finish("Asked "+text.Count(len(req.Reviewers), "reviewer", "reviewers")+" to review again.", TStaleReviewRequested)
}
