package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// flakyLogs are the logs the server fetched for the failed checks, each known flaky; touched says
// the pull request changes the test's file.
func flakyLogs(failed []prstatus.CheckFact, touched bool) []CheckLog {
	var logs []CheckLog
	for _, c := range failed {
		logs = append(logs, CheckLog{Check: c.Name, JobID: c.JobID, Tail: "--- FAIL: TestRetry",
			Signature: &prstatus.FailureSignature{Check: c.Name, Test: "TestRetry", TestFile: "retry_test.go"},
			Flaky:     "passed on a re-run of the same commit on #41; failed 2 of the last 5 runs", TestChanged: touched})
	}
	return logs
}

// A failure known to be flaky, in a test the pull request does not touch, is re-run by the server
// before the agent hears of it, once per head: failing again, it goes to the agent with the
// evidence; passing, nobody hears of it.
func TestAKnownFlakyFailureIsRerunOnceBeforeTheAgentHears(t *testing.T) {
	p := newPR().failing()
	d := start(t)
	req := requireServer(t, d.poll(p), ServerFetchCILogs)
	act := d.send(OutcomeInput(Outcome{Kind: ServerFetchCILogs, OK: true, Logs: flakyLogs(d.m.Position().CI.Failed, false)}))
	rerun := requireServer(t, act, ServerRerunFailed)
	assert.Equal(t, []int64{101}, rerun.RunIDs)
	assert.Contains(t, rerun.Describe, "known flaky")
	assert.Equal(t, req.Checks[0].JobID, rerun.Checks[0].JobID)
	require.Equal(t, ActionPolling, d.ok(ServerRerunFailed).Kind)
	assert.Equal(t, sha("c1"), d.m.Position().Memory.AutoRerun)

	// The re-run fails again (a new job): the agent investigates, with the evidence.
	p.checks(check("test", "COMPLETED", "FAILURE", 1011, 101), check("lint", "COMPLETED", "SUCCESS", 1002, 101))
	requireServer(t, d.poll(p), ServerFetchCILogs)
	act = d.send(OutcomeInput(Outcome{Kind: ServerFetchCILogs, OK: true, Logs: flakyLogs(d.m.Position().CI.Failed, false)}))
	require.Equal(t, ActionExecute, act.Kind, "%+v", act)
	assert.Equal(t, TaskInvestigateCIFailure, act.Task)
	require.Len(t, act.Context.Logs, 1)
	assert.Contains(t, act.Context.Logs[0].Flaky, "passed on a re-run of the same commit on #41")
}

// Where the server does not re-run: the PR touches the test, the failure is not known flaky, one
// failure of several is not, external CI, or the user turned automatic re-runs off.
func TestAFlakyFailureGoesToTheAgentAtOnceWhenItMustNotBeRerun(t *testing.T) {
	tests := []struct {
		name string
		cfg  func(*Config)
		pr   func() *pr
		logs func([]prstatus.CheckFact) []CheckLog
	}{
		{"the PR touches the test", nil, func() *pr { return newPR().failing() },
			func(f []prstatus.CheckFact) []CheckLog { return flakyLogs(f, true) }},
		{"not known flaky", nil, func() *pr { return newPR().failing() },
			func(f []prstatus.CheckFact) []CheckLog {
				logs := flakyLogs(f, false)
				logs[0].Flaky = ""
				return logs
			}},
		{"one of two not known flaky", nil, func() *pr {
			return newPR().checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("lint", "COMPLETED", "FAILURE", 1002, 101))
		}, func(f []prstatus.CheckFact) []CheckLog {
			logs := flakyLogs(f, false)
			logs[1].Flaky = ""
			return logs
		}},
		{"turned off", func(c *Config) { c.NoAutoRerun = true }, func() *pr { return newPR().failing() },
			func(f []prstatus.CheckFact) []CheckLog { return flakyLogs(f, false) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			d := newDriver(t, cfg)
			requireServer(t, d.poll(tt.pr()), ServerFetchCILogs)
			act := d.send(OutcomeInput(Outcome{Kind: ServerFetchCILogs, OK: true, Logs: tt.logs(d.m.Position().CI.Failed)}))
			require.Equal(t, ActionExecute, act.Kind, "%+v", act)
			assert.Equal(t, TaskInvestigateCIFailure, act.Task)
			assert.Empty(t, d.m.Position().Memory.AutoRerun)
		})
	}
}
