package worker

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
		{"under the share", 0.25, []prstatus.RateLimit{{Limit: 100, Remaining: 76, ResetAt: reset}}, false},
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
			err := b.admit()
			var over *monitorwf.OverBudget
			assert.Equal(t, tt.over, errors.As(err, &over), "%v", err)
			if tt.over {
				assert.Equal(t, reset, over.Until, "until the hour resets")
				assert.Contains(t, err.Error(), "nothing is sent before 10:00:00 UTC")
			}
		})
	}
	var none *budget
	assert.NoError(t, none.admit(), "a worker without a budget")
}
