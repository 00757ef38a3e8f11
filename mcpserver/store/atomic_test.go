package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

func TestInterruptedSaveKeepsTheOldRecord(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		step      string
		newRecord bool // the rename happened: the new record is in place
	}{
		{"sync", false},
		{"rename", false},
		{"syncdir", true},
	}
	for _, tt := range tests {
		t.Run(tt.step, func(t *testing.T) {
			dir := t.TempDir()
			f := openFixture(t, dir)
			c := f.claim(t, monitorID)
			old := record(t, monitorID)
			old.StoppedReason = "old"
			require.NoError(t, f.Save(monitorID, old))
			require.NoError(t, c.Release())

			g := openFixture(t, dir, store.WithFailingStep(tt.step, boom))
			g.claim(t, monitorID)
			next := old
			next.StoppedReason = "new"
			err := g.Save(monitorID, next)
			require.ErrorIs(t, err, boom)
			assert.Contains(t, err.Error(), monitorID)

			got, ok, err := g.Load(monitorID)
			require.NoError(t, err)
			require.True(t, ok, "the record is still loadable")
			want := map[bool]string{false: "old", true: "new"}[tt.newRecord]
			assert.Equal(t, want, got.StoppedReason)
			assert.Empty(t, g.filesWith(t, ".tmp-"), "a failed save cleans up after itself")
			assert.Empty(t, g.filesWith(t, ".corrupt-"))
		})
	}
}

func TestStrayTempFilesAreIgnoredThenRemoved(t *testing.T) {
	f := newFixture(t)
	c := f.claim(t, monitorID)
	rec := record(t, monitorID)
	require.NoError(t, f.Save(monitorID, rec))

	// A crash after the temporary file was written, before the rename.
	name := store.FileName(monitorID)
	stray := []string{
		filepath.Join(f.dir, "."+name+".json.tmp-123456"),
		filepath.Join(f.dir, "."+name+".json.tmp-"),
	}
	for _, p := range stray {
		require.NoError(t, os.WriteFile(p, []byte(`{"schema": 1, "monitor_id": "acme/wid`), 0o600))
	}
	other := filepath.Join(f.dir, "."+store.FileName("acme/widgets#8")+".json.tmp-1")
	require.NoError(t, os.WriteFile(other, []byte("{"), 0o600))

	got, ok, err := f.Load(monitorID)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, monitorID, got.MonitorID)
	listed, err := f.List()
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Empty(t, f.filesWith(t, ".corrupt-"))

	require.NoError(t, c.Release())
	f.claim(t, monitorID)
	for _, p := range stray {
		assert.NoFileExists(t, p, "the next claim removes its monitor's leftovers")
	}
	assert.FileExists(t, other, "another monitor's temporary file may be a save in progress")
}
