package statemachine

import (
	"fmt"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
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
	question := fmt.Sprintf("%s conflicts with its base branch (head %s).", s.pos.Monitor.Ref, text.ShortSHA(c.Head))
	return s.ask(elicitation.QMergeConflict, question, []elicitation.Value{elicitation.Rebase, elicitation.HandleMyself, elicitation.Stop}, nil)
}

// rebaseNote is how to rebase, in commands that take no GitHub text: the pull request by its
// number, and the base branch by its name only when that name is safe in a command
// (sanitize.CommandRef); otherwise the agent is told where the name is and why not to paste it.
func rebaseNote(number int, base string) string {
	checkout := fmt.Sprintf("`gh pr checkout %d`", number)
	if sanitize.CommandRef(base) {
		return fmt.Sprintf("Run %s, `git fetch origin %s` and `git rebase origin/%s`; resolve each conflict so that both sides' intent survives, "+
			"run the tests, and push with `git push --force-with-lease`.", checkout, base, base)
	}
	return "Run " + checkout + " and `git fetch origin`, then rebase onto the base branch: its name (context.pr.base_ref) is GitHub text " +
		"that is not a plain branch name, so never paste it into a shell; check what it is first. Resolve each conflict so that both sides' " +
		"intent survives, run the tests, and push with `git push --force-with-lease`."
}

func (s *step) conflictAnswer(v elicitation.Value) (Action, error) {
	switch v {
	case elicitation.Rebase:
		return s.then(TConflictRebase, func() Action {
			return s.execute(TaskRebase, []Event{EventPushCompleted}, TaskContext{
				Note: rebaseNote(s.pos.Monitor.Ref.Number, s.pos.Conflict.BaseRef),
			}, "")
		})
	case elicitation.HandleMyself:
		return s.acknowledge("Leaving the conflict to you; it will not be raised again for this head.")
	}
	return Action{}, fmt.Errorf("statemachine: conflict flow has no handler for %q (a bug)", v)
}
