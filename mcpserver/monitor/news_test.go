package monitor

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// latest is a watcherView holding one update.
type latest struct {
	u  watch.Update
	ok bool
}

func (l latest) Latest(prstatus.PRRef) (watch.Update, bool) { return l.u, l.ok }

// newsMonitor is a monitor of acme/widgets#7 on a fresh machine, in memory.
func newsMonitor(t *testing.T) *Monitor {
	t.Helper()
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	return New(ref.String(), ref, time.Now(), statemachine.New(statemachine.DefaultConfig(), statemachine.Monitor{ID: ref.String(), Ref: ref}),
		NewMemoryState(), slog.New(slog.DiscardHandler), func() {}, contract.Policy{ConnectionIsHost: true})
}

// TestTheStartSnapshotIsTakenOnceWhileItIsRecent: the snapshot pr_monitor_start took is handed to
// the first poll once, up to its age limit exactly, and marks the watcher's copy of it as seen.
func TestTheStartSnapshotIsTakenOnceWhileItIsRecent(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	f := &prstatus.Facts{}
	for _, tc := range []struct {
		name  string
		age   time.Duration
		taken bool
	}{
		{"fresh", 0, true},
		{"exactly as old as allowed", time.Minute, true},
		{"older", time.Minute + time.Nanosecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newsMonitor(t)
			m.Attached(f, at, 5)
			got := m.TakeFresh(at.Add(tc.age), time.Minute)
			if !tc.taken {
				assert.Nil(t, got)
				assert.Zero(t, m.SeenSeq(), "a snapshot not taken is not seen")
				return
			}
			assert.Same(t, f, got)
			assert.Equal(t, uint64(5), m.SeenSeq(), "the watcher's copy is not fed again")
			assert.Nil(t, m.TakeFresh(at, time.Minute), "once")
		})
	}
	m := newsMonitor(t)
	m.Attached(nil, at, 9)
	assert.Nil(t, m.TakeFresh(at, time.Minute), "start_all takes no snapshot")
}

// TestAnUpdateIsSeenOnceAndOnlyWhenReadAfterThePoke: see takes only updates newer than the last
// it took, and counts one as news only when its request went at or after the monitor's last poke.
func TestAnUpdateIsSeenOnceAndOnlyWhenReadAfterThePoke(t *testing.T) {
	m := newsMonitor(t)
	poked := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	m.pokedAt = poked
	assert.True(t, m.See(watch.Update{Seq: 1, At: poked}), "read at the poke")
	assert.False(t, m.See(watch.Update{Seq: 1, At: poked}), "the same update again")
	assert.False(t, m.See(watch.Update{Seq: 2, At: poked.Add(-time.Second)}), "read before the poke")
	assert.Equal(t, uint64(2), m.SeenSeq(), "taken, though it was no news")
	assert.True(t, m.See(watch.Update{Seq: 3, At: poked.Add(time.Second)}))
}

// TestAMonitorHasNewsWhenItStartsHasWorkOrTheWatcherReadSomethingNew: what a monitor_id=all scan
// drives.
func TestAMonitorHasNewsWhenItStartsHasWorkOrTheWatcherReadSomethingNew(t *testing.T) {
	m := newsMonitor(t)
	assert.True(t, m.HasNews(latest{}), "a monitor that has not started")

	now := time.Now()
	_, err := m.Step(now, statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}))
	require.NoError(t, err)
	require.Equal(t, statemachine.ActionPolling, m.Pending().Kind)
	m.mu.Lock()
	m.seen = 4
	m.mu.Unlock()
	assert.False(t, m.HasNews(latest{}), "polling, and the watcher has nothing")
	assert.False(t, m.HasNews(latest{u: watch.Update{Seq: 4}, ok: true}), "nothing newer than what it saw")
	assert.True(t, m.HasNews(latest{u: watch.Update{Seq: 5}, ok: true}), "a newer snapshot")

	m.Attached(&prstatus.Facts{}, now, 4)
	assert.True(t, m.HasNews(latest{}), "a start snapshot to take")
	assert.True(t, m.PendingPoll().PollNow, "the pending poll reads now while the start snapshot waits")
	m.TakeFresh(now, time.Minute)
	assert.Equal(t, m.Pending().PollNow, m.PendingPoll().PollNow, "taken: the poll is as the machine left it")
}
