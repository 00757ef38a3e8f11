package statemachine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// refinePushed are the rows that end the refine flow once the agent's work is in: the task's
// completion, a free-text instruction that pushed, or a recovery that counts the work as pushed.
var refinePushed = []Transition{TRefineDone, TRefineInterpretedPush, TRefineRecoveredByPush, TRefineTreatedAsPushed}

// enterRefine answers changes requested (needs_refine). A round is dispatched automatically at
// most MaxAutoRefines times and never twice within RefineCooldown; a round whose refine already
// ended without answering it goes to the user instead of firing again. handled is false when the
// attention is acknowledged.
func (s *step) enterRefine(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	row, err := s.fireFirst(TRefineAskStalled, TRefineCoolingDown, TRefineDispatch)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	if row == TRefineCoolingDown {
		rec := s.pos.Memory.round(f.Refine.Round)
		return s.polling(fmt.Sprintf("The refine of this review round was handed out at %s; cooling down until %s.",
			rec.LastDispatched.Format("15:04:05"), rec.LastDispatched.Add(s.cfg.RefineCooldown).Format("15:04:05")), false), true, nil
	}
	s.pos.Refine = refineState(f)
	s.pos.Refine.Cluster = s.clusterFor(f, threadIDs(s.pos.Refine.Threads))
	s.pos.FlowKey = att.Key
	if row == TRefineAskStalled {
		act, err := s.askRefineStalled(f.Refine.Reason)
		return act, true, err
	}
	return s.dispatchRefine(), true, nil
}

// roundStalled: a refine of the poll's round already ended, or it reached the automatic limit.
func (s *step) roundStalled() bool {
	rec := s.pos.Memory.round(s.facts.Refine.Round)
	return rec.Completed || rec.Dispatches >= s.cfg.MaxAutoRefines
}

// roundCooling: the poll's round was dispatched less than RefineCooldown ago.
func (s *step) roundCooling() bool {
	rec := s.pos.Memory.round(s.facts.Refine.Round)
	return rec.Dispatches > 0 && s.now.Before(rec.LastDispatched.Add(s.cfg.RefineCooldown))
}

func refineState(f *prstatus.Facts) *RefineState {
	st := &RefineState{Round: f.Refine.Round, Reviewers: slices.Clone(f.Reviews.ChangesRequestedBy)}
	for _, v := range f.Reviews.Latest {
		if v.State == prstatus.ReviewChangesRequested {
			st.Reviews = append(st.Reviews, ReviewContext{ID: v.ReviewID, Reviewer: v.Reviewer, State: string(v.State),
				SubmittedAt: v.SubmittedAt.UTC().Format("2006-01-02T15:04:05Z"), Body: Untrusted(v.Body)})
		}
	}
	for _, t := range openThreads(f) {
		if slices.ContainsFunc(st.Reviewers, func(r string) bool { return strings.EqualFold(r, t.Reviewer) }) {
			st.Threads = append(st.Threads, threadContext(t))
		}
	}
	return st
}

// openThreads lists the threads that still need the PR's side, in Derive's order.
func openThreads(f *prstatus.Facts) []prstatus.ThreadFact {
	return append(slices.Clone(f.Threads.NeedsAction), f.Threads.ReviewerReplied...)
}

func (s *step) dispatchRefine() Action {
	r := s.pos.Refine
	rec := s.pos.Memory.round(r.Round)
	rec.LastDispatched, rec.Dispatches, rec.Completed = s.now, rec.Dispatches+1, false
	rec.ThreadIDs = nil
	for _, t := range r.Threads {
		rec.ThreadIDs = append(rec.ThreadIDs, t.ID)
	}
	s.pos.Memory.setRound(r.Round, rec)
	return s.execute(TaskRefine, []Event{EventPushCompleted, EventTaskComplete}, TaskContext{
		Round: r.Round, Reviews: r.Reviews, Threads: r.Threads, Cluster: r.Cluster, PriorAttempt: s.priorAttempt(),
	}, "")
}

// refineDone: the agent finished the refine. The next poll shows whether a substantive commit
// answered the review; if not, the user is asked rather than the refine fired again.
func (s *step) refineDone() (Action, error) {
	r := s.pos.Refine
	rec := s.pos.Memory.round(r.Round)
	rec.Completed = true
	s.pos.Memory.setRound(r.Round, rec)
	s.workDone(r.Round)
	return s.finish("Refine finished; checking that a new commit answers the review.", refinePushed...)
}

func (s *step) askRefineStalled(reason string) (Action, error) {
	question := fmt.Sprintf("The changes %s requested still look unanswered, and a refine of this round already ran without a new substantive commit. Why, as GitHub shows it:\n%s",
		text.Count(len(s.pos.Refine.Reviewers), "reviewer", "reviewers"), quote(reason))
	return s.ask(elicitation.QRefineStalled, question, []elicitation.Value{elicitation.RefineAgain, elicitation.TreatAsAnswered,
		elicitation.HandleMyself, elicitation.Stop}, &TaskContext{Round: s.pos.Refine.Round, Reviews: s.pos.Refine.Reviews})
}

func (s *step) refineAnswer(v elicitation.Value) (Action, error) {
	switch v {
	case elicitation.RefineAgain:
		if err := s.fire(TRefineAgain); err != nil {
			return Action{}, err
		}
		return s.dispatchRefine(), nil
	case elicitation.TreatAsAnswered:
		return s.acknowledge("Marked this review round as answered; it will not be raised again unless it changes.")
	case elicitation.HandleMyself:
		return s.acknowledge("Leaving this review round to you.")
	}
	return Action{}, fmt.Errorf("statemachine: refine has no handler for %q (a bug)", v)
}
