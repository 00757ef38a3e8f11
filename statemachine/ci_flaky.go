package statemachine

import (
	"slices"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Flaky failures (docs/watcher.md#flaky-checks): the server reads each failing job's log tail
// before the agent hears of it, and marks the failures whose signature is known flaky in the
// repository (it failed and then passed on a re-run of the same commit) and whether the pull
// request touches the test's file. When every failure is such a one in a test the PR does not
// touch, the server re-runs the failed jobs itself, once per head; a failure that fails again, or
// one in a test the PR touches, goes to the agent with the evidence.

// flakyRerun reports whether the fetched logs call for the one automatic re-run of this head.
func (s *step) flakyRerun() bool {
	ci, o := s.pos.CI, s.in.Outcome
	if s.cfg.NoAutoRerun || ci == nil || o == nil || !o.OK || len(o.Logs) == 0 || s.pos.Memory.AutoRerun == ci.Head {
		return false
	}
	if len(ci.Failed) == 0 || !slices.ContainsFunc(ci.Failed, prstatus.CheckFact.IsActions) {
		return false
	}
	for _, c := range ci.Failed {
		if !c.IsActions() || c.FailingOnBase {
			return false // external CI cannot be re-run from here; the base's failure is waited for
		}
		i := slices.IndexFunc(o.Logs, func(l CheckLog) bool { return l.JobID == c.JobID })
		if i < 0 || o.Logs[i].Flaky == "" || o.Logs[i].TestChanged {
			return false
		}
	}
	return true
}

// rerunFlaky asks the server to re-run the failed jobs of the flow's head, once.
func (s *step) rerunFlaky() Action {
	ci := s.pos.CI
	s.pos.Memory.AutoRerun = ci.Head
	ci.Rerun = ServerRerunFailed
	var runs []int64
	for _, c := range ci.Failed {
		if !slices.Contains(runs, c.WorkflowRunID) {
			runs = append(runs, c.WorkflowRunID)
		}
	}
	slices.Sort(runs)
	return s.server(ServerRequest{Kind: ServerRerunFailed, RunIDs: runs, Checks: slices.Clone(ci.Failed),
		Describe: "re-run the failed jobs of " + text.Count(len(runs), "workflow run", "workflow runs") + " (a known flaky failure, re-run once before the agent hears of it)"})
}
