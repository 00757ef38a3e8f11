package statemachine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// ciPushed are the rows that end the CI flow once a fix is pushed: the fix's completion, a
// free-text instruction that pushed, or a recovery that counts the work as pushed.
var ciPushed = []Transition{TCIFixPushed, TCIInterpretedPush, TCIRecoveredByPush, TCITreatedAsPushed}

// enterCI starts the CI flow for failed or cancelled checks on the current head, unless the
// failure is the one a requested re-run replaces and GitHub does not show the re-run yet. Failures
// of Actions jobs first have their log tails fetched server-side, then the investigation goes to
// the agent; cancelled checks ask the user. handled is false when the attention is acknowledged.
func (s *step) enterCI(f *prstatus.Facts, att prstatus.Attention) (Action, bool, error) {
	rows := []Transition{TCIRerunNotShownYet, TCIWaitingForBase, TCIAskBaseFailing, TCIFetchLogs, TCIInvestigate}
	if att.Kind == prstatus.AttentionCICancelled {
		rows = []Transition{TCIRerunNotShownYet, TCIAskCancelled}
	}
	row, err := s.fireFirst(rows...)
	if err != nil || row == "" {
		return Action{}, false, err
	}
	switch row {
	case TCIRerunNotShownYet:
		return s.polling("The re-run was requested; waiting for GitHub to show it.", false), true, nil
	case TCIWaitingForBase:
		return s.polling(s.waitingForBase(f), false), true, nil
	}
	s.pos.Memory.Rerun = nil // shown, replaced by a new head, or waited for long enough
	s.pos.FlowKey = att.Key
	if row == TCIAskCancelled {
		s.pos.CI = &CIState{Head: f.HeadSHA, Cancelled: slices.Clone(f.CI.CancelledChecks)}
		act, err := s.askCancelled()
		return act, true, err
	}
	s.pos.CI = &CIState{Head: f.HeadSHA, Failed: slices.Clone(f.CI.FailedChecks)}
	if row == TCIAskBaseFailing {
		act, err := s.askBaseFailing(f)
		return act, true, err
	}
	if row == TCIInvestigate {
		return s.investigate(), true, nil
	}
	return s.fetchLogs(), true, nil
}

// fetchLogs asks the server for the log tails of the flow's failing Actions jobs.
func (s *step) fetchLogs() Action {
	actions := failedActions(s.pos.CI.Failed)
	return s.server(ServerRequest{Kind: ServerFetchCILogs, Checks: actions,
		Describe: "fetch the log tails of " + text.Count(len(actions), "failing job", "failing jobs")})
}

func (s *step) askCancelled() (Action, error) {
	ci := s.pos.CI
	values := []elicitation.Value{}
	if anyActions(ci.Cancelled) {
		values = append(values, elicitation.RerunFailed)
	}
	values = append(values, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	question := fmt.Sprintf("%s cancelled on %s:\n%s", text.Count(len(ci.Cancelled), "check was", "checks were"), text.ShortSHA(ci.Head), s.checkList(ci.Cancelled))
	return s.ask(elicitation.QCICancelled, question, values, &TaskContext{CancelledChecks: checkContexts(ci.Cancelled)})
}

func (s *step) investigate() Action {
	ci := s.pos.CI
	return s.execute(TaskInvestigateCIFailure, []Event{EventInvestigationComplete},
		TaskContext{FailedChecks: checkContexts(ci.Failed), Logs: ci.Logs}, "")
}

// ciComplete handles the CI flow's task completions.
func (s *step) ciComplete(ev Event, data EventData) (Action, error) {
	ci := s.pos.CI
	switch {
	case s.pos.Task.Name == TaskInvestigateCIFailure && ev == EventInvestigationComplete:
		ci.Findings, ci.Fix, ci.IssueType = data.Findings, data.SuggestedFix, data.IssueType
		return s.thenAsk(TCIAskResults, s.askResults)
	case ev == EventPushCompleted:
		return s.finish("Fix pushed; watching the new CI run.", ciPushed...)
	}
	return Action{}, fmt.Errorf("statemachine: CI task %s cannot complete with %s (a bug)", s.pos.Task.Name, ev)
}

func (s *step) askResults() (Action, error) {
	ci := s.pos.CI
	var values []elicitation.Value
	if strings.TrimSpace(ci.Fix) != "" {
		values = append(values, elicitation.ApplyFix)
	}
	if anyActions(ci.Failed) {
		values = append(values, elicitation.RerunFailed, elicitation.RerunAll)
	}
	values = append(values, elicitation.HandleMyself, elicitation.Stop)
	question := fmt.Sprintf("CI failed on %s in %s:\n%s", text.ShortSHA(ci.Head), text.Count(len(ci.Failed), "check", "checks"), s.checkList(ci.Failed))
	if ci.Findings != "" {
		question += "\nFindings: " + text.ClipBytes(ci.Findings, maxAnalysis)
	}
	if ci.Fix != "" {
		question += "\nSuggested fix: " + text.ClipBytes(ci.Fix, maxAnalysis)
	}
	return s.ask(elicitation.QCIResults, question, values, &TaskContext{FailedChecks: checkContexts(ci.Failed),
		Findings: ci.Findings, SuggestedFix: ci.Fix, IssueType: ci.IssueType})
}

// ciAnswer handles every choice the CI questions can offer.
func (s *step) ciAnswer(v elicitation.Value) (Action, error) {
	ci := s.pos.CI
	switch v {
	case elicitation.ApplyFix:
		return s.then(TCIApplyFix, func() Action {
			return s.execute(TaskApplyFix, []Event{EventPushCompleted}, TaskContext{FailedChecks: checkContexts(ci.Failed),
				Findings: ci.Findings, SuggestedFix: ci.Fix, IssueType: ci.IssueType}, "")
		})
	case elicitation.RerunFailed, elicitation.RerunAll:
		ci.Rerun = ServerRerunFailed
		if v == elicitation.RerunAll {
			ci.Rerun = ServerRerunAll
		}
		if err := s.fire(TCIDeferRerun); err != nil {
			return Action{}, err
		}
		s.pos.Question, s.pos.QuestionContext = nil, nil
		return s.polling("The re-run will start as soon as no check is in flight.", true), nil
	case elicitation.Resume:
		return s.acknowledge("Resuming; these cancellations will not be raised again.")
	case elicitation.HandleMyself:
		return s.acknowledge("Leaving the CI failure to you.")
	case elicitation.WaitForBase:
		return s.waitForBase()
	case elicitation.LookAnyway:
		return s.lookAnyway()
	}
	return Action{}, fmt.Errorf("statemachine: CI flow has no handler for %q (a bug)", v)
}

// ciWaitPoll decides a deferred re-run at ci_rerun_deferred: stop with the pull request, wait
// while checks run, drop it if the head moved or the failures cleared (the poll then carries on
// as usual), otherwise re-run the failing workflow runs of the current head.
func (s *step) ciWaitPoll(f *prstatus.Facts) (Action, bool, error) {
	row, err := s.mustFireFirst(TPRMerged, TPRClosed, TCIRerunWaits, TCIRerunDropped, TCIRerunNow)
	switch {
	case err != nil:
		return Action{}, true, err
	case row == TPRMerged || row == TPRClosed:
		return s.ended(row), true, nil
	case row == TCIRerunWaits:
		return s.polling(fmt.Sprintf("Re-run deferred: %s still in flight.", text.Count(f.CI.Pending, "check", "checks")), false), true, nil
	case row == TCIRerunDropped:
		s.clearFlow()
		return Action{}, false, nil // carry on with the poll as usual
	}
	runs, rerun := rerunnable(f)
	kind := s.pos.CI.Rerun
	what := "re-run the failed jobs of"
	if kind == ServerRerunAll {
		what = "re-run"
	}
	return s.server(ServerRequest{Kind: kind, RunIDs: runs, Checks: rerun, Describe: what + " " + text.Count(len(runs), "workflow run", "workflow runs")}), true, nil
}

// rerunnable are the failing or cancelled Actions checks of f and their workflow runs, sorted.
func rerunnable(f *prstatus.Facts) (runs []int64, checks []prstatus.CheckFact) {
	for _, c := range append(slices.Clone(f.CI.FailedChecks), f.CI.CancelledChecks...) {
		if !c.IsActions() {
			continue
		}
		checks = append(checks, c)
		if !slices.Contains(runs, c.WorkflowRunID) {
			runs = append(runs, c.WorkflowRunID)
		}
	}
	slices.Sort(runs)
	return runs, checks
}

// rerunDecision is what a poll means for a deferred re-run.
type rerunDecision int

const (
	rerunEnded rerunDecision = iota // the pull request was merged or closed
	rerunWaits                      // checks are still in flight
	rerunMoot                       // the head moved, the failures cleared, or nothing can be re-run
	rerunDue                        // re-run now
)

func (s *step) deferredRerun() rerunDecision {
	f, ci := s.facts, s.pos.CI
	switch {
	case f == nil || ci == nil || f.State != prstatus.StateOpen:
		return rerunEnded
	case f.HeadSHA != ci.Head:
		return rerunMoot
	case f.CI.Pending > 0:
		return rerunWaits
	case f.CI.Failed+f.CI.Cancelled == 0:
		return rerunMoot
	}
	if runs, _ := rerunnable(f); len(runs) == 0 {
		return rerunMoot
	}
	return rerunDue
}

// ciOutcome continues after log fetching or a re-run.
func (s *step) ciOutcome(req ServerRequest, o Outcome) (Action, error) {
	switch req.Kind {
	case ServerFetchCILogs:
		s.pos.CI.Logs = o.Logs
		if !o.OK && len(o.Logs) == 0 {
			s.pos.CI.Logs = []CheckLog{{Check: "all", Error: o.Error}}
		}
		row, err := s.mustFireFirst(TCIFlakyRerun, TCILogsFetched)
		if err != nil {
			return Action{}, err
		}
		if row == TCIFlakyRerun {
			return s.rerunFlaky(), nil
		}
		return s.investigate(), nil
	case ServerRerunFailed, ServerRerunAll:
		if !o.OK {
			if err := s.fire(TCIRerunFailed); err != nil {
				return Action{}, err
			}
			return s.askFailed(req, o, false)
		}
		rec := &RerunRecord{Head: s.pos.CI.Head, At: s.now}
		for _, c := range req.Checks {
			rec.Jobs = append(rec.Jobs, c.JobID)
		}
		s.pos.Memory.Rerun = rec
		return s.finish("Re-run started; watching CI.", TCIRerunStarted)
	}
	return Action{}, fmt.Errorf("statemachine: CI flow has no handler for outcome %s (a bug)", req.Kind)
}

// rerunNotShown reports whether the poll still shows jobs a requested re-run replaces on the same
// head: GitHub lists the re-run a moment after the request, and until it does the failure is the
// one already handled. Anything else (the re-run shows, a new head, too long a wait) ends the wait.
func (s *step) rerunNotShown() bool {
	r, f := s.pos.Memory.Rerun, s.facts
	if r == nil {
		return false
	}
	within := s.cfg.RerunShowsWithin
	if within <= 0 {
		within = DefaultConfig().RerunShowsWithin
	}
	if f.HeadSHA != r.Head || !s.now.Before(r.At.Add(within)) {
		return false
	}
	for _, c := range append(slices.Clone(f.CI.FailedChecks), f.CI.CancelledChecks...) {
		if c.JobID != 0 && slices.Contains(r.Jobs, c.JobID) {
			return true
		}
	}
	return false
}

func checkContexts(cs []prstatus.CheckFact) []CheckContext {
	out := make([]CheckContext, len(cs))
	for i, c := range cs {
		out[i] = CheckContext{Name: c.Name, Result: c.Result, URL: c.URL, Workflow: c.Workflow, Rerunnable: c.IsActions(),
			FailingOnBase: c.FailingOnBase}
	}
	return out
}

func anyActions(cs []prstatus.CheckFact) bool {
	return slices.ContainsFunc(cs, prstatus.CheckFact.IsActions)
}

// checkList quotes the names of checks, numbered, at most maxListed of them (check names are
// GitHub text: a workflow or an app names them), and says which cannot be re-run from here.
func (s *step) checkList(cs []prstatus.CheckFact) string {
	var lines []string
	var ext []string
	for i, c := range cs {
		if i < maxListed {
			lines = append(lines, fmt.Sprintf("%d. %s", i+1, text.ClipBytes(c.Name, maxName)))
		}
		if !c.IsActions() {
			ext = append(ext, strconv.Itoa(i+1))
		}
	}
	question := quote(lines...) + s.more(len(cs)-maxListed, "checks")
	if len(ext) > 0 {
		if len(ext) > maxListed {
			ext = append(ext[:maxListed:maxListed], fmt.Sprintf("%d more", len(ext)-maxListed))
		}
		question += "\nNot re-runnable from here (external CI): " + strings.Join(ext, ", ") + "."
	}
	return question
}
