package statemachine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// enterCIFailed starts the CI flow for failures on the current head: fetch the failing Actions
// jobs' log tails server-side, then hand the investigation to the agent.
func (s *step) enterCIFailed(f *prstatus.Facts, att prstatus.Attention) (Action, error) {
	s.pos.CI = &CIState{Head: f.HeadSHA, Failed: slices.Clone(f.CI.FailedChecks)}
	s.pos.FlowKey = att.Key
	if err := s.work(FlowCI); err != nil {
		return Action{}, err
	}
	var actions []prstatus.CheckFact
	for _, c := range f.CI.FailedChecks {
		if c.IsActions() {
			actions = append(actions, c)
		}
	}
	if len(actions) == 0 {
		return s.investigate(), nil
	}
	return s.server(ServerRequest{Kind: ServerFetchCILogs, Checks: actions,
		Describe: fmt.Sprintf("fetch the log tails of %d failing job(s)", len(actions))}), nil
}

// enterCICancelled asks what to do about cancelled checks.
func (s *step) enterCICancelled(f *prstatus.Facts, att prstatus.Attention) (Action, error) {
	s.pos.CI = &CIState{Head: f.HeadSHA, Cancelled: slices.Clone(f.CI.CancelledChecks)}
	s.pos.FlowKey = att.Key
	if err := s.toAsk(FlowCI); err != nil {
		return Action{}, err
	}
	return s.askCancelled()
}

func (s *step) askCancelled() (Action, error) {
	ci := s.pos.CI
	values := []elicitation.Value{}
	if anyActions(ci.Cancelled) {
		values = append(values, elicitation.RerunFailed)
	}
	values = append(values, elicitation.Resume, elicitation.HandleMyself, elicitation.Stop)
	text := fmt.Sprintf("%d check(s) were cancelled on %s:\n%s", len(ci.Cancelled), short(ci.Head), s.checkList(ci.Cancelled))
	return s.ask(elicitation.QCICancelled, text, values, &TaskContext{CancelledChecks: checkContexts(ci.Cancelled)})
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
		if err := s.toAsk(FlowCI); err != nil {
			return Action{}, err
		}
		return s.askResults()
	case ev == EventPushCompleted:
		return s.finish("ci_done", "Fix pushed; watching the new CI run.")
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
	text := fmt.Sprintf("CI failed on %s in %d check(s):\n%s", short(ci.Head), len(ci.Failed), s.checkList(ci.Failed))
	if ci.Findings != "" {
		text += "\nFindings: " + clip(ci.Findings, maxAnalysis)
	}
	if ci.Fix != "" {
		text += "\nSuggested fix: " + clip(ci.Fix, maxAnalysis)
	}
	return s.ask(elicitation.QCIResults, text, values, &TaskContext{FailedChecks: checkContexts(ci.Failed),
		Findings: ci.Findings, SuggestedFix: ci.Fix, IssueType: ci.IssueType})
}

// ciAnswer handles every choice the CI questions can offer.
func (s *step) ciAnswer(v elicitation.Value) (Action, error) {
	ci := s.pos.CI
	switch v {
	case elicitation.ApplyFix:
		return s.workThen(func() Action {
			return s.execute(TaskApplyFix, []Event{EventPushCompleted}, TaskContext{FailedChecks: checkContexts(ci.Failed),
				Findings: ci.Findings, SuggestedFix: ci.Fix, IssueType: ci.IssueType}, "")
		})
	case elicitation.RerunFailed, elicitation.RerunAll:
		ci.Rerun = ServerRerunFailed
		if v == elicitation.RerunAll {
			ci.Rerun = ServerRerunAll
		}
		if err := s.move("ci_defer"); err != nil {
			return Action{}, err
		}
		s.pos.Question, s.pos.QuestionContext = nil, nil
		return s.polling("The re-run will start as soon as no check is in flight.", true), nil
	case elicitation.Resume:
		return s.acknowledge("Resuming; these cancellations will not be raised again.")
	case elicitation.HandleMyself:
		return s.acknowledge("Leaving the CI failure to you.")
	}
	return Action{}, fmt.Errorf("statemachine: CI flow has no handler for %q (a bug)", v)
}

// ciWaitPoll decides a deferred re-run: wait while checks run, drop it if the head moved or the
// failures cleared, otherwise re-run the failing workflow runs of the current head.
func (s *step) ciWaitPoll(f *prstatus.Facts) (Action, bool, error) {
	ci := s.pos.CI
	drop := ""
	switch {
	case f.State != prstatus.StateOpen:
		return Action{}, false, nil // ended() takes it from here
	case f.HeadSHA != ci.Head:
		drop = "A new commit was pushed; the deferred re-run is dropped."
	case f.CI.Pending > 0:
		return s.polling(fmt.Sprintf("Re-run deferred: %d check(s) still in flight.", f.CI.Pending), false), true, s.move("ci_wait")
	case f.CI.Failed+f.CI.Cancelled == 0:
		drop = "The failures cleared; no re-run needed."
	}
	var runs []int64
	var rerun []prstatus.CheckFact
	for _, c := range append(slices.Clone(f.CI.FailedChecks), f.CI.CancelledChecks...) {
		if !c.IsActions() {
			continue
		}
		rerun = append(rerun, c)
		if !slices.Contains(runs, c.WorkflowRunID) {
			runs = append(runs, c.WorkflowRunID)
		}
	}
	if drop == "" && len(runs) == 0 {
		drop = "None of the failing checks can be re-run from here."
	}
	if drop != "" {
		if err := s.move("ci_cancel_rerun"); err != nil {
			return Action{}, true, err
		}
		s.clearFlow()
		return Action{}, false, nil // carry on with the poll as usual
	}
	slices.Sort(runs)
	if err := s.move("ci_rerun"); err != nil {
		return Action{}, true, err
	}
	kind := ci.Rerun
	what := "re-run the failed jobs of"
	if kind == ServerRerunAll {
		what = "re-run"
	}
	return s.server(ServerRequest{Kind: kind, RunIDs: runs, Checks: rerun, Describe: fmt.Sprintf("%s %d workflow run(s)", what, len(runs))}), true, nil
}

// ciOutcome continues after log fetching or a re-run.
func (s *step) ciOutcome(req ServerRequest, o Outcome) (Action, error) {
	switch req.Kind {
	case ServerFetchCILogs:
		s.pos.CI.Logs = o.Logs
		if !o.OK && len(o.Logs) == 0 {
			s.pos.CI.Logs = []CheckLog{{Check: "all", Error: o.Error}}
		}
		return s.investigate(), nil
	case ServerRerunFailed, ServerRerunAll:
		if !o.OK {
			return s.actionFailed(FlowCI, req, o, false)
		}
		rec := &RerunRecord{Head: s.pos.CI.Head, At: s.now}
		for _, c := range req.Checks {
			rec.Jobs = append(rec.Jobs, c.JobID)
		}
		s.pos.Memory.Rerun = rec
		return s.finish("ci_done", "Re-run started; watching CI.")
	}
	return Action{}, fmt.Errorf("statemachine: CI flow has no handler for outcome %s (a bug)", req.Kind)
}

// awaitingRerun reports whether f still shows jobs a requested re-run replaces on the same head:
// GitHub lists the re-run a moment after the request, and until it does the failure is the one
// already handled. Anything else (the re-run shows, a new head, too long a wait) ends the wait.
func (s *step) awaitingRerun(f *prstatus.Facts) bool {
	r := s.pos.Memory.Rerun
	if r == nil {
		return false
	}
	within := s.cfg.RerunShowsWithin
	if within <= 0 {
		within = DefaultConfig().RerunShowsWithin
	}
	if f.HeadSHA == r.Head && s.now.Before(r.At.Add(within)) {
		for _, c := range append(slices.Clone(f.CI.FailedChecks), f.CI.CancelledChecks...) {
			if c.JobID != 0 && slices.Contains(r.Jobs, c.JobID) {
				return true
			}
		}
	}
	s.pos.Memory.Rerun = nil
	return false
}

func checkContexts(cs []prstatus.CheckFact) []CheckContext {
	out := make([]CheckContext, len(cs))
	for i, c := range cs {
		out[i] = CheckContext{Name: c.Name, Result: c.Result, URL: c.URL, Workflow: c.Workflow, Rerunnable: c.IsActions()}
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
			lines = append(lines, fmt.Sprintf("%d. %s", i+1, clip(c.Name, maxName)))
		}
		if !c.IsActions() {
			ext = append(ext, strconv.Itoa(i+1))
		}
	}
	text := quote(lines...) + s.more(len(cs)-maxListed, "check(s)")
	if len(ext) > 0 {
		if len(ext) > maxListed {
			ext = append(ext[:maxListed:maxListed], fmt.Sprintf("%d more", len(ext)-maxListed))
		}
		text += "\nNot re-runnable from here (external CI): " + strings.Join(ext, ", ") + "."
	}
	return text
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// clip shortens s to at most n bytes, on a rune boundary, ending with "…" when it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
