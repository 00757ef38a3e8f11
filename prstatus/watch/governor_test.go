package watch

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestTheCycleFollowsThePullRequestsAndTheBudget(t *testing.T) {
	now := githubfake.DefaultStart()
	tests := []struct {
		name         string
		cfg          Config
		batches      int
		hot, catchUp bool
		rate         prstatus.RateLimit
		wantInterval time.Duration
		wantCycle    time.Duration
	}{
		{name: "one batch: MinCycle", batches: 1, wantInterval: 8 * time.Second, wantCycle: 8 * time.Second},
		// MinCycle/2 = 4 s, but B/2 allows one batch every 5.76 s only.
		{name: "one batch with a hot pull request: faster, within the budget", batches: 1, hot: true,
			wantInterval: 5760 * time.Millisecond, wantCycle: 5760 * time.Millisecond},
		// B/2 = 625 points an hour: a 1-point batch every 5.76 s.
		{name: "ten batches: the budget", batches: 10, wantInterval: 5760 * time.Millisecond, wantCycle: 57600 * time.Millisecond},
		// B/4 while first reads are pending: one batch every 11.52 s.
		{name: "ten batches while a restart's first reads are pending", batches: 10, catchUp: true,
			wantInterval: 11520 * time.Millisecond, wantCycle: 115200 * time.Millisecond},
		{name: "two hundred batches: the budget wins over MaxCycle", batches: 200, wantInterval: 5760 * time.Millisecond, wantCycle: 1152 * time.Second},
		{name: "a bigger limit, a shorter interval", batches: 10, rate: prstatus.RateLimit{Limit: 15000, Remaining: 15000},
			wantInterval: 1920 * time.Millisecond, wantCycle: 19200 * time.Millisecond},
		{name: "a smaller budget, a longer cycle", cfg: Config{Budget: 0.05}, batches: 1, wantInterval: 28800 * time.Millisecond, wantCycle: 28800 * time.Millisecond},
		{name: "quiet hours: MaxCycle", cfg: Config{Quiet: func(time.Time) time.Time { return now.Add(time.Hour) }}, batches: 2,
			wantInterval: 150 * time.Second, wantCycle: 5 * time.Minute},
		{name: "GitHub's remaining points low: MaxCycle", batches: 1, rate: prstatus.RateLimit{Limit: 5000, Remaining: 300},
			wantInterval: 5 * time.Minute, wantCycle: 5 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Connect = func(context.Context) (Source, error) { return nil, nil }
			c, err := cfg.withDefaults()
			require.NoError(t, err)
			g := newGovernor(c)
			g.observe(tt.rate)
			assert.Equal(t, tt.wantInterval, g.interval(now, tt.batches, tt.hot, tt.catchUp))
			assert.Equal(t, tt.wantCycle, g.cycle)
		})
	}
}

func TestRefreshesStopWhenTheBudgetHasNoRoom(t *testing.T) {
	now := githubfake.DefaultStart()
	c, err := Config{Connect: func(context.Context) (Source, error) { return nil, nil }}.withDefaults()
	require.NoError(t, err)
	g := newGovernor(c)
	g.interval(now, 1, false, false) // 450 points an hour of detection
	gap, ok := g.refreshGap(now)
	require.True(t, ok)
	// (1250 − 450) / 2 = 400 points an hour for refreshes of 3 points: one every 27 s.
	assert.Equal(t, 27*time.Second, gap)

	g.charge(now, 800) // 800 + 450 of reserve: no room for a 3-point snapshot
	assert.False(t, g.snapshotRoom(now))
	_, ok = g.refreshGap(now)
	assert.False(t, ok)
	at := g.roomAt(now)
	assert.True(t, at.After(now) && !at.After(now.Add(time.Hour)), "room comes back as the hour passes: %s", at)
}
