package statemachine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

// rerunRequested plays a failure on the head up to the user's re-run, requested and accepted.
func rerunRequested(t *testing.T, p *pr, choice elicitation.Value) *drv {
	d := start(t)
	requireServer(t, d.poll(p), ServerFetchCILogs)
	d.ok(ServerFetchCILogs)
	d.ev(EventInvestigationComplete, EventData{Findings: "flaky", IssueType: "flaky"})
	d.choose(choice)
	kind := ServerRerunFailed
	if choice == elicitation.RerunAll {
		kind = ServerRerunAll
	}
	requireServer(t, d.poll(p), kind)
	require.Equal(t, ActionPolling, d.ok(kind).Kind)
	return d
}

// GitHub lists re-run jobs a moment after the request: polls that still show the old failed run
// on the same head are waited out, not investigated a second time.
func TestARerunIsWaitedForUntilGitHubShowsIt(t *testing.T) {
	for _, choice := range []elicitation.Value{elicitation.RerunFailed, elicitation.RerunAll} {
		t.Run(string(choice), func(t *testing.T) {
			p := newPR().failing()
			d := rerunRequested(t, p, choice)

			act := d.poll(p) // the old failed run, still shown
			assert.Equal(t, ActionPolling, act.Kind, "no second investigation of the same failure: %+v", act)
			assert.Contains(t, act.Message, "re-run")
			assert.Equal(t, ActionPolling, d.poll(p).Kind)

			// The re-run shows (a new job), then fails again: that is a new failure.
			assert.Equal(t, ActionPolling, d.poll(p.checks(check("test", "QUEUED", "", 1011, 101), check("lint", "COMPLETED", "SUCCESS", 1002, 101))).Kind)
			p.checks(check("test", "COMPLETED", "FAILURE", 1011, 101), check("lint", "COMPLETED", "SUCCESS", 1002, 101))
			req := requireServer(t, d.poll(p), ServerFetchCILogs)
			assert.Equal(t, int64(1011), req.Checks[0].JobID)
		})
	}
}

// The wait is bounded: a re-run GitHub never shows (dropped silently), a new head, are raised as
// usual.
func TestARerunThatNeverShowsIsRaisedAgain(t *testing.T) {
	t.Run("never shows", func(t *testing.T) {
		p := newPR().failing()
		d := rerunRequested(t, p, elicitation.RerunFailed)
		assert.Equal(t, ActionPolling, d.poll(p).Kind)
		d.now = d.now.Add(DefaultConfig().RerunShowsWithin)
		requireServer(t, d.poll(p), ServerFetchCILogs)
	})
	t.Run("new head", func(t *testing.T) {
		p := newPR().failing()
		d := rerunRequested(t, p, elicitation.RerunFailed)
		p.push("c2").failing()
		requireServer(t, d.poll(p), ServerFetchCILogs)
	})
	t.Run("restarted meanwhile", func(t *testing.T) {
		p := newPR().failing()
		d := rerunRequested(t, p, elicitation.RerunFailed)
		m, err := Restore(DefaultConfig(), d.m.Position())
		require.NoError(t, err)
		d.m = m
		d.now = d.now.Add(time.Minute)
		assert.Equal(t, ActionPolling, d.poll(p).Kind, "the wait is in the saved position")
	})
}

// TestAConfigWithoutARerunWaitWaitsTheDefault: a zero RerunShowsWithin (a config that leaves it
// out) waits the default for a re-run to show, and no longer.
func TestAConfigWithoutARerunWaitWaitsTheDefault(t *testing.T) {
	cfg := DefaultConfig()
	cfg.RerunShowsWithin = 0
	p := newPR().failing()
	d := newDriver(t, cfg)
	d.poll(p)
	d.ok(ServerFetchCILogs)
	d.ev(EventInvestigationComplete, EventData{Findings: "flaky"})
	d.choose(elicitation.RerunFailed)
	requireServer(t, d.poll(p), ServerRerunFailed)
	d.ok(ServerRerunFailed)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "the old failed run is waited out")
	d.now = d.now.Add(DefaultConfig().RerunShowsWithin / 2)
	assert.Equal(t, ActionPolling, d.poll(p).Kind, "still within the default")
	d.now = d.now.Add(DefaultConfig().RerunShowsWithin / 2)
	requireServer(t, d.poll(p), ServerFetchCILogs)
}

// TestLogsThatCouldNotBeFetchedReachTheInvestigationAsTheError: a failed log fetch that brought
// nothing hands the investigation the error in place of logs; logs it did bring are handed as
// they are.
func TestLogsThatCouldNotBeFetchedReachTheInvestigationAsTheError(t *testing.T) {
	for _, tt := range []struct {
		name    string
		outcome Outcome
		want    []CheckLog
	}{
		{"nothing fetched", Outcome{Kind: ServerFetchCILogs, Error: "403 logs expired"},
			[]CheckLog{{Check: "all", Error: "403 logs expired"}}},
		{"some fetched before the failure", Outcome{Kind: ServerFetchCILogs, Error: "502", Logs: []CheckLog{{Check: "test", Tail: "FAIL x"}}},
			[]CheckLog{{Check: "test", Tail: "FAIL x"}}},
		{"all fetched", Outcome{Kind: ServerFetchCILogs, OK: true, Logs: []CheckLog{{Check: "test", Tail: "FAIL x"}}},
			[]CheckLog{{Check: "test", Tail: "FAIL x"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			d.poll(newPR().failing())
			act := d.send(OutcomeInput(tt.outcome))
			requireExecute(t, act, TaskInvestigateCIFailure)
			assert.Equal(t, tt.want, act.Context.Logs)
		})
	}
}
