package statemachine

import "fmt"

// replay recognises an answer the machine already took, sent again because the call that carried
// it lost its response (a timeout, a server killed inside the call). It changes nothing and
// answers with what the monitor waits on now: what that answer led to. ok is false for anything
// else. With the question's seq the match is exact; without it, only while a task is in progress,
// where no question could be meant.
func (s *step) replay() (Action, bool) {
	a, in := s.pos.Answered, s.in
	if a == nil || in.Kind != InputEvent || in.Event != EventUserChose || in.Choice != a.Choice {
		return Action{}, false
	}
	switch {
	case in.QuestionSeq != 0:
		if in.QuestionSeq != a.Seq {
			return Action{}, false
		}
	case s.pos.Node.State() != StateExecutingTask || s.pos.Task == nil || s.pos.Task.Name == TaskInterpretFreeform:
		return Action{}, false
	}
	return s.pending(fmt.Sprintf("%q was already taken as the answer to question %d; this is what it led to.", a.Choice, a.Seq)), true
}

// redeliver hands the interrupted task out again when the agent's ready may mean it never
// received it, and nothing was pushed that would complete it.
func (s *step) redeliver(task Task, ff *FreeformState) (Action, error) {
	if err := s.returnTo(s.interruptedTaskNode(s.pos.Node.Flow())); err != nil {
		return Action{}, err
	}
	s.pos.Task, s.pos.Freeform, s.pos.Recovery = &task, ff, nil
	act := task.Emitted
	act.Message = "The task in progress, handed out again: its first hand-out may not have reached you."
	return act, nil
}
