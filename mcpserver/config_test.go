package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// TestOneChecksGraceRulesTheFactsAndTheWatcher: --checks-grace sets the grace the facts derive
// with and the one after which the watcher publishes a head without checks again, so the two never
// disagree on when a head with no check counts as green.
func TestOneChecksGraceRulesTheFactsAndTheWatcher(t *testing.T) {
	pushed := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	snap := &prstatus.Snapshot{State: prstatus.StateOpen, HeadOID: "c1", Mergeable: prstatus.MergeableYes,
		Commits: []prstatus.Commit{{OID: "c1", AuthoredDate: pushed, CommittedDate: pushed, ParentCount: 1}}}
	connect := func(context.Context) (GitHub, error) { return nil, nil }
	for _, tt := range []struct {
		name      string
		grace     time.Duration
		watcher   time.Duration
		waitUntil time.Time // zero: the head counts as green 3 minutes after its push
	}{
		{"the default", 0, prstatus.DefaultChecksGrace, time.Time{}},
		{"ten minutes", 10 * time.Minute, 10 * time.Minute, pushed.Add(10 * time.Minute)},
		{"none", -1, -1, time.Time{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := New(Config{Connect: connect, ChecksGrace: tt.grace})
			require.NoError(t, err)
			assert.Equal(t, tt.watcher, srv.cfg.Watch.ChecksGrace, "the watcher's grace")
			f := srv.derive(snap, pushed.Add(3*time.Minute))
			assert.Equal(t, tt.waitUntil, f.CI.GraceUntil, "the facts' grace")
			assert.Equal(t, tt.waitUntil.IsZero(), f.CI.Green())
		})
	}
}
