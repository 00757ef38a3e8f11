package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBudgetAcceptsAPercentageOrAFraction(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{in: "25%", want: 0.25},
		{in: " 10 % ", want: 0.10},
		{in: "0.25", want: 0.25},
		{in: "1", want: 1},
		{in: "100%", want: 1},
		{in: "0.5%", want: 0.005},
		{in: "25", wantErr: "for a percentage write 25%"},
		{in: "0", wantErr: "more than 0"},
		{in: "-5%", wantErr: "more than 0"},
		{in: "150%", wantErr: "at most 100%"},
		{in: "a lot", wantErr: "write 25% or 0.25"},
		{in: "NaN", wantErr: "write 25% or 0.25"},
		{in: "", wantErr: "write 25% or 0.25"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var b budgetFlag
			err := b.Set(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.InDelta(t, tt.want, float64(b), 1e-9)
		})
	}
}

func TestServeRefusesABadBudgetClearly(t *testing.T) {
	res := runCLI(t, withToken(), "serve", "--state-dir", t.TempDir(), "--budget", "150%")
	assert.Equal(t, exitUsage, res.code)
	assert.Contains(t, res.stderr, "budget")
	assert.Contains(t, res.stderr, "at most 100%")
	assert.Empty(t, res.stdout, "stdout belongs to the protocol")
}

func TestWatchConfigTakesTheBudgetAndTheShortestPollAsTheShortestCycle(t *testing.T) {
	cfg := watcherConfig(0.1, nil, nil, 0, 15*time.Millisecond, 0)
	assert.InDelta(t, 0.1, cfg.Budget, 1e-9)
	assert.Equal(t, 15*time.Millisecond, cfg.MinCycle)
	assert.Equal(t, 15*time.Millisecond, cfg.Jitter, "a short cycle stays short")
	assert.Zero(t, watcherConfig(0, nil, nil).MinCycle, "no poll flag: the watcher's own pace")
}
