package store_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

func TestAStateDirectoryOthersCanWriteIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows governs access with ACLs; docs/security.md")
	}
	for _, mode := range []os.FileMode{0o777, 0o770, 0o722, 0o702} {
		dir := filepath.Join(t.TempDir(), "state")
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, mode))
		_, err := store.Open(dir, nil)
		require.ErrorIs(t, err, store.ErrUnsafe, "mode %#o", mode)
		assert.Contains(t, err.Error(), "chmod 700 "+dir)
	}
	for _, mode := range []os.FileMode{0o700, 0o755, 0o750} {
		dir := filepath.Join(t.TempDir(), "state")
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, mode))
		_, err := store.Open(dir, nil)
		assert.NoError(t, err, "mode %#o: only the user can write", mode)
	}
	if os.Geteuid() != 0 {
		_, err := store.Open("/", nil) // root's
		require.ErrorIs(t, err, store.ErrUnsafe)
		assert.Contains(t, err.Error(), "belongs to user id 0, not to you")
	}
}

// A link planted in the state directory is never followed: the server neither writes through it
// (over the user's files) nor reads a record, a log or a key from it.
func TestNothingInTheStateDirectoryIsOpenedThroughALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("creating symbolic links needs a privilege on Windows")
	}
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious\n"), 0o600))
	plant := func(t *testing.T, f *fixture, name string) {
		t.Helper()
		require.NoError(t, os.Symlink(victim, filepath.Join(f.dir, name)))
	}
	name := store.FileName(monitorID)

	t.Run("the event log", func(t *testing.T) {
		f := newFixture(t)
		f.claim(t, monitorID)
		plant(t, f, name+".events.jsonl")
		err := f.Append(monitorID, storeEvent("x"))
		require.ErrorIs(t, err, store.ErrUnsafe)
		assert.Contains(t, err.Error(), "is a symbolic link")
		_, err = f.Events(monitorID)
		require.ErrorIs(t, err, store.ErrUnsafe)
	})
	t.Run("the claim's lock", func(t *testing.T) {
		f := newFixture(t)
		plant(t, f, name+".lock")
		_, err := f.Claim(monitorID)
		require.ErrorIs(t, err, store.ErrUnsafe)
	})
	t.Run("a record", func(t *testing.T) {
		f := newFixture(t)
		f.claim(t, monitorID)
		plant(t, f, name+".json")
		_, _, err := f.Load(monitorID)
		require.ErrorIs(t, err, store.ErrUnsafe)
	})
	t.Run("the watcher's spend", func(t *testing.T) {
		f := newFixture(t)
		plant(t, f, "spend.json")
		_, _, err := f.Spend("https://api.github.com/").LoadSpend()
		require.ErrorIs(t, err, store.ErrUnsafe)
	})
	t.Run("the seal key", func(t *testing.T) {
		f := newFixture(t)
		plant(t, f, "seal.key")
		_, err := f.Secret("seal.key", 32)
		require.ErrorIs(t, err, store.ErrUnsafe)
	})
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious\n", string(got), "the link's target is untouched")
}

func TestTheSealKeyIsMadeOnceAndKeptPrivate(t *testing.T) {
	f := newFixture(t)
	key, err := f.Secret("seal.key", 32)
	require.NoError(t, err)
	assert.Len(t, key, 32)
	again, err := f.Secret("seal.key", 32)
	require.NoError(t, err)
	assert.Equal(t, key, again, "read back, not made anew")
	if runtime.GOOS == "windows" {
		return
	}
	info, err := os.Stat(filepath.Join(f.dir, "seal.key"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	require.NoError(t, os.Chmod(filepath.Join(f.dir, "seal.key"), 0o644))
	_, err = f.Secret("seal.key", 32)
	require.ErrorIs(t, err, store.ErrUnsafe, "a key others can read is refused")
	assert.Contains(t, err.Error(), "chmod 600")
}
