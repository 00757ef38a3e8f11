package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// baseFailing makes the named checks fail on the base branch's tip (b1) too.
func (p *pr) baseFailing(names ...string) *pr {
	p.s.BaseOID, p.s.BaseChecks = sha("b1"), nil
	for i, n := range names {
		p.s.BaseChecks = append(p.s.BaseChecks, check(n, "COMPLETED", "FAILURE", int64(9000+i), 900))
	}
	return p
}

// baseGreen makes the base branch's tip (b2) pass the named checks.
func (p *pr) baseGreen(names ...string) *pr {
	p.s.BaseOID, p.s.BaseChecks = sha("b2"), nil
	for i, n := range names {
		p.s.BaseChecks = append(p.s.BaseChecks, check(n, "COMPLETED", "SUCCESS", int64(9100+i), 910))
	}
	return p
}

// A failure the base branch shares is no fix task: the user is asked once, waits by default (a
// declined prompt too), and the wait lasts while the base fails; once the base is green, the
// failure is the pull request's and goes to the agent as usual.
func TestAFailureTheBaseSharesWaitsForTheBase(t *testing.T) {
	for _, answer := range []string{"wait", "decline"} {
		t.Run(answer, func(t *testing.T) {
			p := newPR().failing().baseFailing("test")
			d := start(t)
			act := d.poll(p)
			requireAsk(t, act, elicitation.QCIBaseFailing, elicitation.WaitForBase, elicitation.LookAnyway, elicitation.HandleMyself, elicitation.Stop)
			assert.Contains(t, act.Question.Text, "fail on the tip of main (b1")
			assert.Contains(t, act.Question.Text, "not this pull request's")
			require.Len(t, act.Context.FailedChecks, 1)
			assert.True(t, act.Context.FailedChecks[0].FailingOnBase)

			if answer == "wait" {
				act = d.choose(elicitation.WaitForBase)
			} else {
				act = d.send(DeclineInput())
			}
			assert.Equal(t, ActionPolling, act.Kind)
			assert.Contains(t, act.Message, "Waiting for main to go green")
			require.NotNil(t, d.m.Position().Memory.BaseWait)

			for range 3 { // the base still fails, on a new tip too: no question, no task
				act = d.poll(p)
				assert.Equal(t, ActionPolling, act.Kind, "%+v", act)
				assert.Contains(t, act.Message, "Waiting for main to go green")
			}
			p.push("c2").failing()
			assert.Equal(t, ActionPolling, d.poll(p).Kind, "a new head failing the same way waits too")

			requireServer(t, d.poll(p.baseGreen("test")), ServerFetchCILogs)
			assert.Nil(t, d.m.Position().Memory.BaseWait)
		})
	}
}

// "Look anyway" hands the failure to the agent as usual, the checks marked as failing on the
// base: an Actions job's log is fetched first, a commit status goes straight to investigation.
func TestLookingAnywayHandsTheFailureToTheAgent(t *testing.T) {
	t.Run("actions job", func(t *testing.T) {
		p := newPR().failing().baseFailing("test")
		d := start(t)
		requireAsk(t, d.poll(p), elicitation.QCIBaseFailing)
		req := requireServer(t, d.choose(elicitation.LookAnyway), ServerFetchCILogs)
		assert.Equal(t, int64(1001), req.Checks[0].JobID)
		act := d.ok(ServerFetchCILogs)
		require.Equal(t, ActionExecute, act.Kind)
		assert.Equal(t, TaskInvestigateCIFailure, act.Task)
		assert.True(t, act.Context.FailedChecks[0].FailingOnBase)
	})
	t.Run("commit status", func(t *testing.T) {
		p := newPR().checks(prstatus.Check{Kind: prstatus.KindStatusContext, Name: "ext", State: "FAILURE"})
		p.s.BaseOID, p.s.BaseChecks = sha("b1"), []prstatus.Check{{Kind: prstatus.KindStatusContext, Name: "ext", State: "FAILURE"}}
		d := start(t)
		requireAsk(t, d.poll(p), elicitation.QCIBaseFailing)
		act := d.choose(elicitation.LookAnyway)
		require.Equal(t, ActionExecute, act.Kind)
		assert.Equal(t, TaskInvestigateCIFailure, act.Task)
	})
}

// A failure the base shares only in part is the pull request's: no question, the usual flow.
func TestAFailureTheBaseSharesOnlyInPartIsThePullRequests(t *testing.T) {
	p := newPR().checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("lint", "COMPLETED", "FAILURE", 1002, 101)).baseFailing("test")
	d := start(t)
	requireServer(t, d.poll(p), ServerFetchCILogs)
}
