package store_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// TestTheDirectoryIsSyncedAfterEveryRename: a save and a set-aside each sync the state directory
// once the rename is done (the new record, or the set-aside name, is already in place), so the
// rename itself survives a power cut.
func TestTheDirectoryIsSyncedAfterEveryRename(t *testing.T) {
	var synced []string
	var seen [][]string // the directory's files at each sync
	dir := t.TempDir()
	f := openFixture(t, dir, store.WithSyncDirSpy(func(d string) {
		synced = append(synced, filepath.Clean(d))
		entries, err := os.ReadDir(d)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		seen = append(seen, names)
	}))
	f.claim(t, monitorID)
	name := store.FileName(monitorID)

	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	require.Len(t, synced, 1, "one directory sync per save")
	assert.Equal(t, filepath.Clean(f.dir), synced[0])
	assert.Contains(t, seen[0], name+".json", "synced after the rename")
	for _, n := range seen[0] {
		assert.NotContains(t, n, ".tmp-", "no temporary file left at the sync")
	}

	require.NoError(t, f.SetAside(monitorID, "test"))
	require.Len(t, synced, 2, "a set-aside syncs the directory too")
	assert.Equal(t, filepath.Clean(f.dir), synced[1])
	assert.Contains(t, seen[1], name+".json.corrupt-20261120T090000Z", "synced after the rename")
	assert.NotContains(t, seen[1], name+".json")
}

func TestSyncDir(t *testing.T) {
	require.NoError(t, store.SyncDir(t.TempDir()))
	assert.Error(t, store.SyncDir(filepath.Join(t.TempDir(), "missing")))
}

// openFDs counts this process's open file descriptors, or -1 where /proc cannot tell.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

func TestSyncDirReleasesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	before := openFDs(t)
	if before < 0 {
		t.Skip("no /proc/self/fd to count descriptors")
	}
	for range 50 {
		require.NoError(t, store.SyncDir(dir))
	}
	assert.Less(t, openFDs(t), before+10, "every directory opened for a sync is closed again")
}

func TestASetAsideWhoseDirectorySyncFailsStillSetsAsideAndWarns(t *testing.T) {
	f := newFixture(t, store.WithFailingStep("syncdir", errors.New("EIO")))
	f.claim(t, monitorID)
	path := filepath.Join(f.dir, store.FileName(monitorID)+".json")
	require.NoError(t, os.WriteFile(path, []byte("not json"), 0o600))
	require.NoError(t, f.SetAside(monitorID, "test"))
	assert.NoFileExists(t, path)
	assert.Contains(t, f.logs.String(), "cannot sync the state directory")

	g := newFixture(t)
	g.claim(t, monitorID)
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, store.FileName(monitorID)+".json"), []byte("not json"), 0o600))
	require.NoError(t, g.SetAside(monitorID, "test"))
	assert.NotContains(t, g.logs.String(), "cannot sync", "a sync that worked says nothing")
}

func TestSetAsideNamesCountUpAndStopAtAThousand(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	name := store.FileName(monitorID)
	base := name + ".json.corrupt-20261120T090000Z"
	for range 3 {
		require.NoError(t, f.Save(monitorID, record(t, monitorID)))
		require.NoError(t, f.SetAside(monitorID, "again"))
	}
	assert.ElementsMatch(t, []string{base, base + "-2", base + "-3"}, f.filesWith(t, ".corrupt-"))

	// base and base-2 … base-999 taken: the thousandth name is still used, then no more.
	g := newFixture(t)
	g.claim(t, monitorID)
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, base), nil, 0o600))
	for i := 2; i <= 999; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(g.dir, fmt.Sprintf("%s-%d", base, i)), nil, 0o600))
	}
	require.NoError(t, g.Save(monitorID, record(t, monitorID)))
	require.NoError(t, g.SetAside(monitorID, "the thousandth"))
	assert.FileExists(t, filepath.Join(g.dir, base+"-1000"))
	require.NoError(t, g.Save(monitorID, record(t, monitorID)))
	err := g.SetAside(monitorID, "one too many")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "too many set-aside records")
}

// TestARecordOfExactlyTheLimitLoads: the size limit lets a record of maxRecordBytes through and
// sets aside one byte more, saying why.
func TestARecordOfExactlyTheLimitLoads(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	path := filepath.Join(f.dir, store.FileName(monitorID)+".json")
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	padded := append(data, strings.Repeat(" ", store.MaxRecordBytes-len(data))...)
	require.NoError(t, os.WriteFile(path, padded, 0o600))
	_, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	assert.True(t, ok, "exactly the limit")

	require.NoError(t, os.WriteFile(path, append(padded, ' '), 0o600))
	_, ok, err = f.Load(monitorID)
	require.NoError(t, err)
	assert.False(t, ok, "one byte over")
	events, err := f.Events(monitorID)
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Contains(t, events[len(events)-1].Summary, "larger than")
}

func TestAZeroEventLogLimitKeepsTheDefault(t *testing.T) {
	f := newFixture(t, store.WithEventLogLimit(0))
	f.claim(t, monitorID)
	for i := range 5 {
		require.NoError(t, f.Append(monitorID, store.Event{Kind: store.EventAction, Summary: fmt.Sprint("event ", i)}))
	}
	lines := eventLines(t, filepath.Join(f.dir, store.FileName(monitorID)+".events.jsonl"))
	assert.Len(t, lines, 5, "nothing rotated: the limit is the default, not zero")
}

func TestFileNamesAtTheirEdges(t *testing.T) {
	for id, readable := range map[string]string{
		"com0/x#1":               "_com0.x.1",
		"lpt9/x#1":               "_lpt9.x.1",
		"com/x#1":                "com.x.1",
		"coma/x#1":               "coma.x.1",
		strings.Repeat("a", 100): strings.Repeat("a", 64), // the readable part stops at 64 bytes
		strings.Repeat("b", 64):  strings.Repeat("b", 64),
	} {
		name := store.FileName(id)
		assert.Equal(t, readable, name[:len(name)-9], "id %q", id)
		assert.True(t, store.ValidName(name), name)
	}
}

func TestALeftoverThatCannotBeRemovedIsReportedAndSkipped(t *testing.T) {
	f := newFixture(t)
	name := store.FileName(monitorID)
	stuck := filepath.Join(f.dir, "."+name+".json.tmp-stuck")
	require.NoError(t, os.MkdirAll(filepath.Join(stuck, "inside"), 0o700)) // a non-empty directory: Remove fails
	gone := filepath.Join(f.dir, "."+name+".json.tmp-1")
	require.NoError(t, os.WriteFile(gone, []byte("{"), 0o600))

	f.claim(t, monitorID)
	assert.DirExists(t, stuck)
	assert.NoFileExists(t, gone)
	logs := f.logs.String()
	assert.Contains(t, logs, "cannot remove a stray temporary file")
	assert.Contains(t, logs, "removed the temporary file of an interrupted save")
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		switch {
		case strings.Contains(line, "cannot remove"):
			assert.Contains(t, line, "tmp-stuck", "only the one that could not be removed")
		case strings.Contains(line, "removed the temporary file"):
			assert.Contains(t, line, "tmp-1", "only the one that was")
		}
	}
}

func TestASetAsideTheEventLogCannotNoteStillSetsAside(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	name := store.FileName(monitorID)
	require.NoError(t, os.WriteFile(filepath.Join(f.dir, name+".json"), []byte("not json"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(f.dir, name+".events.jsonl", "inside"), 0o700)) // unwritable as a file
	require.NoError(t, f.SetAside(monitorID, "test"))
	assert.NoFileExists(t, filepath.Join(f.dir, name+".json"))
	assert.Contains(t, f.logs.String(), "cannot note the set-aside record in the event log")

	g := newFixture(t)
	g.claim(t, monitorID)
	require.NoError(t, os.WriteFile(filepath.Join(g.dir, name+".json"), []byte("not json"), 0o600))
	require.NoError(t, g.SetAside(monitorID, "test"))
	assert.NotContains(t, g.logs.String(), "cannot note")
}
