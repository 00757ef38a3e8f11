package statemachine

import (
	"fmt"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// conflictPushed are the rows that end the conflict flow once the rebase is pushed: the task's
// completion, a free-text instruction that pushed, or a recovery that counts the work as pushed.
var conflictPushed = []Transition{TConflictRebased, TConflictInterpretedPush, TConflictRecoveredByPush, TConflictTreatedAsPushed}

// enterConflict asks about a merge conflict with the base branch; handled is false when the
// attention is acknowledged.
func (s *step) enterConflict(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	row, err := s.fireFirst(TConflictAsk)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	s.pos.Conflict = &ConflictState{Head: f.HeadSHA, BaseRef: f.BaseRef}
	s.pos.FlowKey = att.Key
	act, err := s.askConflict()
	return act, true, err
}

func (s *step) askConflict() (Action, error) {
	c := s.pos.Conflict
	text := fmt.Sprintf("%s conflicts with %s (head %s).", plainName(s.pos.Monitor.HeadRef, "The branch"),
		plainName(c.BaseRef, "its base branch"), short(c.Head))
	return s.ask(elicitation.QMergeConflict, text, []elicitation.Value{elicitation.Rebase, elicitation.HandleMyself, elicitation.Stop}, nil)
}

func (s *step) conflictAnswer(v elicitation.Value) (Action, error) {
	switch v {
	case elicitation.Rebase:
		return s.then(TConflictRebase, func() Action {
			return s.execute(TaskRebase, []Event{EventPushCompleted}, TaskContext{
				Note: fmt.Sprintf("Rebase %s onto %s, resolve the conflicts, run the tests, and push.",
					plainName(s.pos.Monitor.HeadRef, "context.pr.head_ref"), plainName(s.pos.Conflict.BaseRef, "context.pr.base_ref")),
			}, "")
		})
	case elicitation.HandleMyself:
		return s.acknowledge("Leaving the conflict to you; it will not be raised again for this head.")
	}
	return Action{}, fmt.Errorf("statemachine: conflict flow has no handler for %q (a bug)", v)
}
