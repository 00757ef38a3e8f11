package statemachine

import (
	"fmt"
	"regexp"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Stacked pull requests (docs/watcher.md#stacked-pull-requests): a pull request whose base branch
// is another open pull request's head. Its merge question says that it merges into the lower one's
// branch, and its default answer waits for the lower one. When the lower one merges and GitHub
// retargets this one, the agent gets a rebase task with the exact `git rebase --onto`: the new
// base's tip from the snapshot, the old base's tip from memory, commit ids only, so the lower
// one's commits (squashed on merge) drop out instead of conflicting.

// commitID is a full commit id: the only form a rebase command takes from GitHub.
var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// waitsForLower reports whether the user chose to wait for the pull request this one is stacked
// on.
func (s *step) waitsForLower() bool {
	f := s.facts
	return f != nil && f.StackedOn != nil && s.pos.Memory.LowerWait == f.StackedOn.Number
}

// retargeted reports whether the pull request this one was stacked on is gone from under it and
// GitHub moved it to another base branch.
func (s *step) retargeted() bool {
	m, f := s.pos.Memory.Stack, s.facts
	return m != nil && f != nil && f.State == prstatus.StateOpen && f.BaseRef != m.BaseRef &&
		(f.StackedOn == nil || f.StackedOn.Number != m.Lower)
}

// noteStack remembers the stack the poll shows (or forgets one that ended without a retarget),
// and the wait for a lower pull request that is no longer below this one. The old base tip a
// rebase starts from is the lower one's head when this one was last pushed (or first seen): the
// commit it is built on. A lower one that moves on meanwhile (new commits, or rebased itself after
// its own retarget) does not move it; this one's next push (rebased onto the lower one) does.
func (s *step) noteStack(f *prstatus.Facts) {
	m := &s.pos.Memory
	switch {
	case f.StackedOn != nil:
		if old := m.Stack; old != nil && old.Lower == f.StackedOn.Number && old.BaseRef == f.BaseRef && old.Head == f.HeadSHA {
			break
		}
		m.Stack = &StackRecord{Lower: f.StackedOn.Number, BaseRef: f.BaseRef, Tip: f.BaseSHA, Head: f.HeadSHA}
	case m.Stack != nil && f.BaseRef == m.Stack.BaseRef:
		m.Stack = nil // the lower one closed or its branch is no one's head now: no retarget
	}
	if f.StackedOn == nil || f.StackedOn.Number != m.LowerWait {
		m.LowerWait = 0
	}
}

// stackRetargeted hands the agent the rebase a retargeted stack needs. ok is false when the poll
// shows no retarget (the stack is noted instead).
func (s *step) stackRetargeted(f *prstatus.Facts) (Action, bool, error) {
	if !s.retargeted() {
		s.noteStack(f)
		return Action{}, false, nil
	}
	row, err := s.fireFirst(TConflictStackRetargeted)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	old := s.pos.Memory.Stack
	s.pos.Memory.Stack = nil
	s.noteStack(f)
	s.pos.Conflict = &ConflictState{Head: f.HeadSHA, BaseRef: f.BaseRef}
	s.pos.FlowKey = "stack:" + old.Tip
	return s.execute(TaskRebase, []Event{EventPushCompleted}, TaskContext{
		Note: stackRebaseNote(s.pos.Monitor.Ref.Number, old, f),
	}, ""), true, nil
}

// stackRebaseNote is the exact rebase: `git rebase --onto <new base tip> <old base tip>`, both
// commit ids; the new base branch by name only when the name is safe in a command.
func stackRebaseNote(number int, old *StackRecord, f *prstatus.Facts) string {
	if !commitID.MatchString(f.BaseSHA) || !commitID.MatchString(old.Tip) {
		return fmt.Sprintf("#%d, which this pull request was stacked on, is gone and GitHub retargeted this one. ", old.Lower) + rebaseNote(number, f.BaseRef)
	}
	fetch := "`git fetch origin`"
	onto := "its new base branch (context.pr.base_ref, GitHub text: never paste it into a shell)"
	if sanitize.CommandRef(f.BaseRef) {
		fetch = fmt.Sprintf("`git fetch origin %s`", f.BaseRef)
		onto = "`" + f.BaseRef + "`"
	}
	return fmt.Sprintf("#%d, which this pull request was stacked on, merged, and GitHub retargeted this one onto %s (tip %s). "+
		"Run `gh pr checkout %d` and %s, then `git rebase --onto %s %s`: the commits up to the old base's tip (%s, #%d's head) "+
		"drop out instead of conflicting with their squashed copy. Run the tests and push with `git push --force-with-lease`.",
		old.Lower, onto, text.ShortSHA(f.BaseSHA), number, fetch, f.BaseSHA, old.Tip, text.ShortSHA(old.Tip), old.Lower)
}

// askReadyStacked is the merge question of a stacked pull request: merging merges into the lower
// one's branch, and the default waits for the lower one.
func (s *step) askReadyStacked(f *prstatus.Facts, att prstatus.Attention) (Action, error) {
	s.setReady(f, att)
	lower := f.StackedOn.Number
	question := fmt.Sprintf("%s is ready: %s. It is stacked on #%d: merging it now merges it into #%d's branch, not into the branch #%d "+
		"merges into. The default waits for #%d to merge first; GitHub then retargets this one and it is asked again.",
		s.pos.Monitor.Ref, readyWords(f), lower, lower, lower, lower)
	return s.ask(elicitation.QReadyStacked, question,
		[]elicitation.Value{elicitation.WaitForLower, elicitation.Merge, elicitation.HandleMyself, elicitation.Stop}, nil)
}

// waitForLower is the user's choice to merge the lower pull request first.
func (s *step) waitForLower() (Action, error) {
	lower := 0
	if s.facts != nil && s.facts.StackedOn != nil {
		lower = s.facts.StackedOn.Number
	} else if s.pos.Memory.Stack != nil {
		lower = s.pos.Memory.Stack.Lower
	}
	s.pos.Memory.LowerWait = lower
	return s.finish(fmt.Sprintf("Waiting for #%d to merge first.", lower), TReadyWaitForLower)
}
