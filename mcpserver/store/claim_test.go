package store_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

func requireInUse(t *testing.T, err error) *store.InUseError {
	t.Helper()
	require.ErrorIs(t, err, store.ErrInUse)
	var inUse *store.InUseError
	require.ErrorAs(t, err, &inUse)
	assert.NotContains(t, err.Error(), "\n", "one line")
	return inUse
}

func TestClaimAcrossProcesses(t *testing.T) {
	tests := []struct {
		name string
		end  func(*holder, *testing.T)
	}{
		{"the holder exits", (*holder).exit},
		{"the holder crashes", (*holder).kill},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			h := startHolder(t, f.dir, monitorID)

			_, err := f.Claim(monitorID)
			inUse := requireInUse(t, err)
			assert.Equal(t, h.pid(), inUse.PID)
			assert.False(t, inUse.SameProcess)
			assert.Equal(t, monitorID, inUse.MonitorID)
			assert.Contains(t, err.Error(), fmt.Sprintf("pid %d", h.pid()))
			assert.Contains(t, err.Error(), monitorID)

			_, err = f.Claim(strings.ToUpper(monitorID))
			requireInUse(t, err) // the same pull request, spelt differently

			other := f.claim(t, "acme/widgets#8")
			require.NoError(t, f.Save("acme/widgets#8", record(t, "acme/widgets#8")), "another monitor in the same directory")

			tt.end(h, t)
			c := f.claim(t, monitorID)
			require.NoError(t, f.Save(monitorID, record(t, monitorID)))
			require.NoError(t, c.Release())
			require.NoError(t, other.Release())
		})
	}
}

func TestClaimTwiceInOneProcess(t *testing.T) {
	f := newFixture(t)
	c := f.claim(t, monitorID)
	assert.Equal(t, monitorID, c.ID())

	_, err := f.Claim(monitorID)
	inUse := requireInUse(t, err)
	assert.True(t, inUse.SameProcess)
	assert.Contains(t, err.Error(), "this process")

	// A second store on the same directory is refused by the file lock itself.
	g := openFixture(t, f.dir)
	_, err = g.Claim(monitorID)
	inUse = requireInUse(t, err)
	assert.Equal(t, os.Getpid(), inUse.PID)
	assert.True(t, inUse.SameProcess)

	require.NoError(t, c.Release())
	g.claim(t, monitorID)
	_, err = f.Claim(monitorID)
	requireInUse(t, err)
}

func TestCloseReleasesEveryClaim(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"a/b#1", "a/b#2"} {
		f.claim(t, id)
	}
	require.NoError(t, f.Close())
	for _, id := range []string{"a/b#1", "a/b#2"} {
		assert.ErrorIs(t, f.Save(id, record(t, id)), store.ErrNotClaimed)
		f.claim(t, id)
	}
}

func TestReleaseBlanksThePID(t *testing.T) {
	f := newFixture(t)
	c := f.claim(t, monitorID)
	lock := filepath.Join(f.dir, store.FileName(monitorID)+".lock")
	data, err := os.ReadFile(lock)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprint(os.Getpid()), strings.TrimSpace(strings.Trim(string(data), "\x00")))

	require.NoError(t, c.Release())
	data, err = os.ReadFile(lock)
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(strings.Trim(string(data), "\x00")), "no stale pid for the next refusal")
	assert.FileExists(t, lock, "lock files stay: removing one races with the next locker")
}
