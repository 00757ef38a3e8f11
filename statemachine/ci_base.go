package statemachine

import (
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// A failure the base branch shares (docs/watcher.md#failures-that-are-not-the-pull-requests): every
// failing check also fails on the base branch's tip, read in the same snapshot. No fix task goes to
// the agent; the user is asked once whether to wait for the base to go green (the default) or have
// the agent look anyway, and the wait lasts while every failure is still the base's.

// askBaseFailing asks what to do about failures the base branch's tip shares.
func (s *step) askBaseFailing(f *prstatus.Facts) (Action, error) {
	ci := s.pos.CI
	ci.BaseTip = f.BaseSHA
	base := orBase(s.pos.Monitor.BaseRef)
	question := fmt.Sprintf("CI failed on %s in %s that fail on the tip of %s (%s) too:\n%s\n"+
		"The failure is not this pull request's. Wait for %s to go green (no fix task), or have the agent look anyway?",
		text.ShortSHA(ci.Head), text.Count(len(ci.Failed), "check", "checks"), base, text.ShortSHA(ci.BaseTip), s.checkList(ci.Failed), base)
	values := []elicitation.Value{elicitation.WaitForBase, elicitation.LookAnyway, elicitation.HandleMyself, elicitation.Stop}
	return s.ask(elicitation.QCIBaseFailing, question, values, &TaskContext{FailedChecks: checkContexts(ci.Failed)})
}

// waitForBase is the user's choice to wait: remembered until a poll shows a failure the base does
// not share (or none).
func (s *step) waitForBase() (Action, error) {
	ci := s.pos.CI
	w := &BaseWait{Base: s.pos.Monitor.BaseRef, Tip: ci.BaseTip, Since: s.now}
	for _, c := range ci.Failed {
		w.Checks = append(w.Checks, c.DisplayName())
	}
	if err := s.fire(TCIWaitForBase); err != nil {
		return Action{}, err
	}
	s.pos.Memory.BaseWait = w
	s.clearFlow()
	return s.polling(fmt.Sprintf("Waiting for %s to go green: no fix task, the failing checks fail on its tip too.", orBase(w.Base)), false), nil
}

// lookAnyway hands the failure to the agent as usual, the checks marked as failing on the base.
func (s *step) lookAnyway() (Action, error) {
	row, err := s.mustFireFirst(TCILookAnywayFetchLogs, TCILookAnywayInvestigate)
	if err != nil {
		return Action{}, err
	}
	s.pos.Question, s.pos.QuestionContext = nil, nil
	if row == TCILookAnywayInvestigate {
		return s.investigate(), nil
	}
	return s.fetchLogs(), nil
}

// waitingForBase is the polling message while the user waits for the base branch.
func (s *step) waitingForBase(f *prstatus.Facts) string {
	return fmt.Sprintf("Waiting for %s to go green: %s on %s %s on its tip (%s) too; no fix task.",
		orBase(f.BaseRef), text.Count(len(f.CI.FailedChecks), "check", "checks"), text.ShortSHA(f.HeadSHA),
		plural(len(f.CI.FailedChecks), "fails", "fail"), text.ShortSHA(f.BaseSHA))
}

// forgetBaseWait ends the wait for the base once a poll shows a failure the base does not share,
// or no failure at all.
func (s *step) forgetBaseWait(f *prstatus.Facts) {
	if s.pos.Memory.BaseWait != nil && !f.CI.FailingOnBaseOnly() {
		s.pos.Memory.BaseWait = nil
	}
}

func orBase(ref string) string {
	if ref == "" {
		return "the base branch"
	}
	return ref
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// failedActions are the flow's failing checks that are GitHub Actions jobs.
func failedActions(cs []prstatus.CheckFact) []prstatus.CheckFact {
	var out []prstatus.CheckFact
	for _, c := range cs {
		if c.IsActions() {
			out = append(out, c)
		}
	}
	return slices.Clip(out)
}
