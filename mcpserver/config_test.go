package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
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

// TestAConfigKeepsWhatIsSetAndFillsInWhatIsNot: New fills in every setting left zero with its
// default and keeps every setting given.
func TestAConfigKeepsWhatIsSetAndFillsInWhatIsNot(t *testing.T) {
	connect := func(context.Context) (GitHub, error) { return nil, nil }
	_, err := New(Config{})
	require.Error(t, err, "Connect is required")

	srv, err := New(Config{Connect: connect})
	require.NoError(t, err)
	c := srv.cfg
	assert.NotNil(t, c.State)
	assert.Equal(t, statemachine.DefaultConfig(), c.Machine)
	assert.NotEmpty(t, c.HostBounds)
	assert.Equal(t, contract.DefaultCallBound, c.DefaultBound)
	assert.Equal(t, contract.DefaultCallBound, c.MaxBlock)
	assert.False(t, c.maxBlockSet, "a bound left zero goes by the host")
	assert.Equal(t, 5*time.Second, c.ProgressEvery)
	assert.Equal(t, time.Second, c.PushEvery)
	assert.Equal(t, 5*time.Second, c.PushGrace)
	assert.Equal(t, DefaultNotifyAfter, c.NotifyAfter)
	assert.Equal(t, 8, c.RoundTrips)
	assert.Equal(t, 64, c.Workers)
	assert.NotNil(t, c.Now)
	assert.NotNil(t, c.Logger)
	assert.Equal(t, "dev", c.Version)

	machine := statemachine.DefaultConfig()
	machine.MergeMethod = "rebase"
	state := monitor.NewMemoryState()
	set := Config{Connect: connect, State: state, Machine: machine, HostBounds: []contract.HostBound{{Host: "X", Names: []string{"x"}, Bound: time.Second}},
		DefaultBound: 7 * time.Second, MaxBlock: 3 * time.Second, ProgressEvery: 2 * time.Second, PushEvery: 3 * time.Second,
		PushGrace: 4 * time.Second, NotifyAfter: 6 * time.Second, RoundTrips: 2, Workers: 9, Version: "v1"}
	srv, err = New(set)
	require.NoError(t, err)
	c = srv.cfg
	assert.Same(t, state, c.State.(*monitor.MemoryState))
	assert.Equal(t, "rebase", c.Machine.MergeMethod, "a machine configured is kept")
	assert.Equal(t, []contract.HostBound{{Host: "X", Names: []string{"x"}, Bound: time.Second}}, c.HostBounds)
	assert.Equal(t, 7*time.Second, c.DefaultBound)
	assert.Equal(t, 3*time.Second, c.MaxBlock)
	assert.True(t, c.maxBlockSet)
	assert.Equal(t, 2*time.Second, c.ProgressEvery)
	assert.Equal(t, 3*time.Second, c.PushEvery)
	assert.Equal(t, 4*time.Second, c.PushGrace)
	assert.Equal(t, 6*time.Second, c.NotifyAfter)
	assert.Equal(t, 2, c.RoundTrips)
	assert.Equal(t, 9, c.Workers)
	assert.Equal(t, "v1", c.Version)
}

// TestTheReviewersAreTheConfiguredBotsOrTheDefaults: with no review bots configured the server
// acts on the default bots' feedback; with some, on theirs alone.
func TestTheReviewersAreTheConfiguredBotsOrTheDefaults(t *testing.T) {
	assert.Equal(t, prstatus.DefaultReviewerPolicy(), (&Config{}).reviewers())
	bots := []string{"sonnet-reviewer[bot]"}
	got := (&Config{ReviewBots: bots}).reviewers()
	assert.Equal(t, prstatus.ReviewerPolicy{Bots: bots}, got)
	got.Bots[0] = "changed"
	assert.Equal(t, "sonnet-reviewer[bot]", bots[0], "the policy has its own copy")
	assert.Equal(t, prstatus.ReviewerPolicy{Bots: []string{}}, (&Config{ReviewBots: []string{}}).reviewers(), "an empty list: no bot at all")
}
