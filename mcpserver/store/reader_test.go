package store_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// dirState is every file of a directory with its size, mode and modification time.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		info, err := e.Info()
		require.NoError(t, err)
		out[e.Name()] = fmt.Sprintf("%d %v %v", info.Size(), info.Mode(), info.ModTime().UnixNano())
	}
	return out
}

// A reader sees what a server saved, while the server holds its claims, and leaves every file as
// it found it: an unusable record is reported, never set aside.
func TestAReaderSeesSavedMonitorsWithoutTouchingAFile(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	for i := range 3 {
		f.clock.Advance(time.Second)
		require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventPoll, Summary: fmt.Sprintf("poll %d", i)}))
	}
	corrupt := filepath.Join(f.dir, store.FileName("acme/widgets#9")+".json")
	require.NoError(t, os.WriteFile(corrupt, []byte(`{"schema":1,"monitor_id":`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, "notes.txt"), []byte("not ours"), 0o600))
	before := dirState(t, f.dir)

	saved, err := store.NewReader(f.dir, 2).Read()
	require.NoError(t, err)

	require.Len(t, saved, 2)
	assert.Equal(t, monitorID, saved[0].Record.MonitorID)
	assert.Empty(t, saved[0].Problem)
	require.Len(t, saved[0].Events, 2, "the newest two events")
	assert.Equal(t, "poll 1", saved[0].Events[0].Summary)
	assert.Equal(t, "poll 2", saved[0].Events[1].Summary)
	assert.Equal(t, store.FileName("acme/widgets#9"), saved[1].Name)
	assert.Contains(t, saved[1].Problem, "not a valid record")
	assert.Equal(t, before, dirState(t, f.dir), "the reader wrote, renamed or created nothing")
}

// A monitor held by another process reads the same: the reader takes no lock.
func TestAReaderReadsAMonitorAnotherProcessHolds(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	require.NoError(t, f.Close())
	startHolder(t, f.dir, monitorID)

	saved, err := store.NewReader(f.dir, 1).Read()
	require.NoError(t, err)
	require.Len(t, saved, 1)
	assert.Equal(t, monitorID, saved[0].Record.MonitorID)
}

func TestAReaderFollowsChangesBetweenReads(t *testing.T) {
	f := newFixture(t)
	r := store.NewReader(f.dir, 3)
	saved, err := r.Read()
	require.NoError(t, err)
	assert.Empty(t, saved, "an empty directory has no monitors")

	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventLifecycle, Summary: "started"}))
	saved, err = r.Read()
	require.NoError(t, err)
	require.Len(t, saved, 1)
	require.Len(t, saved[0].Events, 1)

	f.clock.Advance(time.Minute)
	require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventPoll, Summary: "poll: ci_pending → polling at polling"}))
	saved, err = r.Read()
	require.NoError(t, err)
	require.Len(t, saved[0].Events, 2, "a new event is seen on the next read")
	assert.Equal(t, t0.Add(time.Minute), saved[0].Events[1].At)

	const other = "acme/widgets#8"
	f.claim(t, other)
	rec := record(t, other)
	rec.Position.Monitor.ID = other
	require.NoError(t, f.Save(other, rec))
	saved, err = r.Read()
	require.NoError(t, err)
	require.Len(t, saved, 2, "a monitor added meanwhile is seen")
	assert.Equal(t, other, saved[1].Record.MonitorID)

	require.NoError(t, os.Remove(filepath.Join(f.dir, store.FileName(other)+".json")))
	saved, err = r.Read()
	require.NoError(t, err)
	assert.Len(t, saved, 1, "a record gone meanwhile is left out")
}

// The newest events come from the end of the log, reaching into the rotated log when the current
// one is short, and skip a line a crash cut short.
func TestAReaderTakesTheNewestEventsAcrossRotation(t *testing.T) {
	f := newFixture(t, store.WithEventLogLimit(300))
	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	for i := range 8 {
		f.clock.Advance(time.Second)
		require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventPoll, Summary: fmt.Sprintf("poll %d %s", i, strings.Repeat("x", 40))}))
	}
	log := filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl")
	_, err := os.Stat(log + ".1")
	require.NoError(t, err, "the log was rotated")
	file, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	_, err = file.WriteString(`{"at":"2026-11-20T09:00:09Z","kind":"po`)
	require.NoError(t, err)
	require.NoError(t, file.Close())

	saved, err := store.NewReader(f.dir, 4).Read()
	require.NoError(t, err)
	require.Len(t, saved[0].Events, 4)
	for i, e := range saved[0].Events {
		assert.True(t, strings.HasPrefix(e.Summary, fmt.Sprintf("poll %d ", 4+i)), "event %d: %q", i, e.Summary)
	}
}

// A large log is read from its end: the newest events come back whatever the log's size.
func TestAReaderReadsOnlyTheEndOfALongLog(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	for i := range 3000 {
		require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventPoll, Summary: fmt.Sprintf("poll %d", i)}))
	}
	saved, err := store.NewReader(f.dir, 2).Read()
	require.NoError(t, err)
	require.Len(t, saved[0].Events, 2)
	assert.Equal(t, "poll 2998", saved[0].Events[0].Summary)
	assert.Equal(t, "poll 2999", saved[0].Events[1].Summary)
}

func TestAReaderOfAMissingDirectorySaysSo(t *testing.T) {
	_, err := store.NewReader(filepath.Join(t.TempDir(), "nowhere"), 1).Read()
	require.ErrorIs(t, err, fs.ErrNotExist)
}
