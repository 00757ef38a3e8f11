package statemachine

import (
	"fmt"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// freeformEvents are the events that complete interpret_freeform in each flow: user_chose when the
// agent maps the words back to a choice (path A), or the flow's own completions when it carries
// out the instruction (path B).
func freeformEvents(f Flow) []Event {
	switch f {
	case FlowComments:
		return []Event{EventUserChose, EventCommentAddressed, EventCommentReplied, EventTaskComplete}
	case FlowCI, FlowRefine, FlowConflict:
		return []Event{EventUserChose, EventPushCompleted, EventTaskComplete}
	default:
		return []Event{EventUserChose, EventTaskComplete}
	}
}

// beginFreeform hands text the classifiers could not map to the agent, with everything it needs to
// act on it without the chat history that never saw the prompt.
func (s *step) beginFreeform(a FreeformAnswer) (Action, error) {
	q, flow := *s.pos.Question, s.pos.Node.Flow()
	s.pos.Freeform = &FreeformState{Question: q, QuestionContext: s.pos.QuestionContext, Answer: a, Recovery: s.pos.Recovery}
	s.pos.Recovery = nil
	fc := &FreeformContext{
		Flow:        flow,
		Reason:      elicitation.ReasonFor(a.Classification),
		Elicitation: elicitation.Elicited{Question: q.Text, Choices: q.Choices},
		UserReply:   elicitation.UserReply{Text: a.Text, IsFreeform: true, Classification: a.Classification, Reasoning: a.Reasoning},
	}
	for _, c := range q.Choices {
		if s.pos.NeedsUser(c.Value) {
			fc.UserOnly = append(fc.UserOnly, c.Value)
		}
	}
	switch flow {
	case FlowComments:
		t := s.current()
		fc.Thread = &t
		if r := s.pos.Comments.Recommendation; r != "" {
			fc.Analysis = &Analysis{Recommendation: r}
		}
	case FlowCI:
		ci := s.pos.CI
		fc.Checks = checkContexts(append(append([]prstatus.CheckFact{}, ci.Failed...), ci.Cancelled...))
		if ci.Findings != "" || ci.Fix != "" {
			fc.Analysis = &Analysis{Findings: ci.Findings, SuggestedFix: ci.Fix}
		}
	}
	if _, err := s.mustFireFirst(TRefineInterpret, TCommentsInterpret, TCIInterpret, TConflictInterpret, TReadyInterpret,
		TStaleInterpret); err != nil {
		return Action{}, err
	}
	return s.execute(TaskInterpretFreeform, freeformEvents(flow), TaskContext{Freeform: fc}, ""), nil
}

// freeformChoice is path A: the agent read the words as one of the choices.
func (s *step) freeformChoice(v elicitation.Value) (Action, error) {
	ff := s.pos.Freeform
	s.ff = ff
	if !ff.Question.Offers(v) {
		return Action{}, fmt.Errorf("%w: %q; the question offered %v", ErrChoiceNotOffered, v, ff.Question.Values())
	}
	if err := s.returnTo(questionNode(s.pos.Node.Flow(), ff.Question.ID)); err != nil {
		return Action{}, err
	}
	q := ff.Question
	s.pos.Question, s.pos.QuestionContext, s.pos.Recovery = &q, ff.QuestionContext, ff.Recovery
	s.pos.Task, s.pos.Freeform = nil, nil
	return s.answer(v)
}

// freeformDone is path B: the agent carried out the instruction. Afterwards the same question
// comes back rather than the flow restarting, unless the work itself completed the flow's step.
func (s *step) freeformDone(ev Event, data EventData) (Action, error) {
	ff, flow := s.pos.Freeform, s.pos.Node.Flow()
	switch {
	case ev == EventTaskComplete:
		return s.reaskAfterFreeform(data)
	case flow == FlowComments && (ev == EventCommentAddressed || ev == EventCommentReplied):
		s.pos.Freeform = nil
		kind := prstatus.ReplyAddressed
		if ev == EventCommentReplied {
			kind = prstatus.ReplyReplied
		}
		return s.commentsCompleteAs(kind, data)
	case ev == EventPushCompleted:
		s.pos.Freeform = nil
		switch flow {
		case FlowRefine:
			return s.refineDone()
		case FlowCI:
			return s.finish("Pushed; watching the new CI run.", ciPushed...)
		case FlowConflict:
			return s.finish("Pushed; watching the new head.", conflictPushed...)
		}
	}
	return Action{}, fmt.Errorf("statemachine: interpret_freeform in %s cannot complete with %s (a bug, question %s)", flow, ev, ff.Question.ID)
}

// reaskAfterFreeform shows the interrupted question again, refreshed with any new analysis.
func (s *step) reaskAfterFreeform(data EventData) (Action, error) {
	ff := s.pos.Freeform
	s.ff = ff
	if err := s.returnTo(questionNode(s.pos.Node.Flow(), ff.Question.ID)); err != nil {
		return Action{}, err
	}
	s.pos.Freeform, s.pos.Recovery = nil, ff.Recovery
	switch {
	case s.pos.CI != nil && ff.Question.ID == elicitation.QCIResults:
		if data.Recommendation != "" {
			s.pos.CI.Fix = data.Recommendation
		}
		return s.askResults()
	case s.pos.Comments != nil && (ff.Question.ID == elicitation.QCommentSingle || ff.Question.ID == elicitation.QCommentExplained):
		if data.Recommendation != "" {
			s.pos.Comments.Recommendation = data.Recommendation
		}
		return s.askExplained()
	}
	q := ff.Question
	s.pos.Seq++
	q.Seq = s.pos.Seq
	s.pos.Question, s.pos.QuestionContext = &q, ff.QuestionContext
	s.pos.Task = nil
	return Action{Kind: ActionAskUser, Question: &q, Context: ff.QuestionContext, Message: "Done; here is the question again."}, nil
}
