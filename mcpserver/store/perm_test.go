package store_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

func TestPermissions(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "new", "state")
	f := openFixture(t, dir)
	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	require.NoError(t, f.Append(monitorID, storeEvent("one")))
	require.NoError(t, f.SetAside(monitorID, "test"))
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))

	for _, d := range []string{filepath.Join(parent, "new"), dir} {
		info, err := os.Stat(d)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o700), info.Mode().Perm(), d)
	}
	files := f.files(t)
	require.Len(t, files, 4, "record, lock, events, set aside: %v", files)
	for _, name := range files {
		info, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm(), name)
	}
	assert.Equal(t, dir, f.Dir())
}

func TestOpen(t *testing.T) {
	_, err := store.Open("", nil)
	require.Error(t, err)

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err = store.Open(file, nil)
	require.Error(t, err, "a file where the directory should be")

	st, err := store.Open(filepath.Join(t.TempDir(), "rel", ".."), nil)
	require.NoError(t, err, "a nil logger is fine")
	assert.True(t, filepath.IsAbs(st.Dir()))
}
