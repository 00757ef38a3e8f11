package worker

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
)

func TestTheBudgetRefusesGitHubCallsOnceTheTokensShareOfTheHourIsSpent(t *testing.T) {
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	reset := now.Add(30 * time.Minute)
	tests := []struct {
		name  string
		share float64
		seen  []prstatus.RateLimit
		over  bool
	}{
		{"nothing seen yet: nothing to go by", 0.25, nil, false},
		{"room for one more call of three points", 0.25, []prstatus.RateLimit{{Limit: 100, Remaining: 78, ResetAt: reset}}, false},
		{"not for three more points", 0.25, []prstatus.RateLimit{{Limit: 100, Remaining: 77, ResetAt: reset}}, true},
		{"at the share", 0.25, []prstatus.RateLimit{{Limit: 100, Remaining: 75, ResetAt: reset}}, true},
		{"spent by another worker of the token counts too (GitHub's counter)", 0.25, []prstatus.RateLimit{{Limit: 5000, Remaining: 10, ResetAt: reset}}, true},
		{"the hour reset", 0.25, []prstatus.RateLimit{{Limit: 100, Remaining: 0, ResetAt: now.Add(-time.Second)}}, false},
		{"a late answer from the last hour changes nothing", 0.25, []prstatus.RateLimit{
			{Limit: 100, Remaining: 90, ResetAt: reset}, {Limit: 100, Remaining: 0, ResetAt: reset.Add(-time.Hour)}}, false},
		{"no share: only GitHub's own limits", 0, []prstatus.RateLimit{{Limit: 100, Remaining: 1, ResetAt: reset}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBudget(tt.share, func() time.Time { return now })
			for _, rl := range tt.seen {
				b.observe(rl)
			}
			release, err := b.admit()
			if release != nil {
				release()
			}
			var over *monitorwf.OverBudget
			assert.Equal(t, tt.over, errors.As(err, &over), "%v", err)
			if tt.over {
				assert.Equal(t, reset, over.Until, "until the hour resets")
				assert.Contains(t, err.Error(), "nothing is sent before 10:00:00 UTC")
			}
		})
	}
	var none *budget
	_, err := none.admit()
	assert.NoError(t, err, "a worker without a budget")
}

func TestCallsAdmittedTogetherReserveTheirPointsSoTheyCannotOvershootTheShare(t *testing.T) {
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	b := newBudget(0.25, func() time.Time { return now })
	b.observe(prstatus.RateLimit{Limit: 40, Remaining: 40, Cost: 2, ResetAt: now.Add(time.Hour)}) // 10 points allowed, 2 a call
	var releases []func()
	for range 5 {
		release, err := b.admit()
		require.NoError(t, err)
		releases = append(releases, release)
	}
	_, err := b.admit()
	require.Error(t, err, "five calls in flight hold the ten points: a sixth waits")
	releases[0]()
	releases[0]() // twice changes nothing
	b.observe(prstatus.RateLimit{Limit: 40, Remaining: 38, Cost: 2, ResetAt: now.Add(time.Hour)})
	_, err = b.admit()
	require.Error(t, err, "the first call's answer counted what it spent: still no room")
	b.observe(prstatus.RateLimit{Limit: 40, Remaining: 40, Cost: 2, ResetAt: now.Add(time.Hour)})
	_, err = b.admit()
	require.Error(t, err, "an earlier answer of the hour arriving late does not give the points back")
}

func TestTheMetricsHearEveryAnswersCostAndTheLatestCounters(t *testing.T) {
	now := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	reset := now.Add(30 * time.Minute)
	type heard struct {
		cost      int
		remaining int
	}
	var got []heard
	b := newBudget(0, func() time.Time { return now }) // no share: the metrics hear all the same
	b.meter = func(cost int, rl prstatus.RateLimit) { got = append(got, heard{cost, rl.Remaining}) }
	b.observe(prstatus.RateLimit{Limit: 5000, Remaining: 4990, Cost: 3, ResetAt: reset})
	b.observe(prstatus.RateLimit{Limit: 5000, Remaining: 4995, Cost: 1, ResetAt: reset})                // overtaken: the counters stay
	b.observe(prstatus.RateLimit{Limit: 5000, Remaining: 100, Cost: 1, ResetAt: reset.Add(-time.Hour)}) // last hour's, late
	b.observe(prstatus.RateLimit{})                                                                     // no counters: nothing
	assert.Equal(t, []heard{{3, 4990}, {1, 4990}, {1, 4990}}, got)
}
