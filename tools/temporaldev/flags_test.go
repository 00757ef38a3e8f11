package main

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFlags(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want options
		err  string
	}{
		{name: "none: memory, a free port", want: options{namespace: "default", retention: 24 * time.Hour, ready: time.Minute}},
		{name: "a file and a port", args: []string{"-db-file", filepath.Join(dir, "t.db"), "-port", "7233", "-namespace", "ns"},
			want: options{namespace: "ns", retention: 24 * time.Hour, ready: time.Minute, dbFile: filepath.Join(dir, "t.db"), port: 7233}},
		{name: "a port out of range", args: []string{"-port", "70000"}, err: "-port 70000"},
		{name: "a negative port", args: []string{"-port", "-1"}, err: "-port -1"},
		{name: "a port that is not a number", args: []string{"-port", "x"}, err: "invalid value"},
		{name: "an empty namespace", args: []string{"-namespace", ""}, err: "-namespace"},
		{name: "a stray argument", args: []string{"db.sqlite"}, err: "unexpected arguments"},
		{name: "an unknown flag", args: []string{"-dbfile", "x"}, err: "not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseFlags(c.args, io.Discard)
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.want, o)
		})
	}
}

func TestARelativeDatabaseFileIsMadeAbsolute(t *testing.T) {
	o, err := parseFlags([]string{"-db-file", "state.db"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, filepath.IsAbs(o.dbFile), o.dbFile)
	assert.Equal(t, "state.db", filepath.Base(o.dbFile))
}

func TestANewDatabaseFileGetsItsSchemaAndAnExistingOneIsReused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.db")
	c, err := sqliteConfig(file)
	require.NoError(t, err)
	assert.Equal(t, file, c.DatabaseName)
	assert.Equal(t, "wal", c.ConnectAttributes["journal_mode"])
	assert.FileExists(t, file, "the schema was written")
	_, err = sqliteConfig(file)
	assert.NoError(t, err, "the second start reuses the file")

	_, err = sqliteConfig(filepath.Join(t.TempDir(), "missing", "state.db"))
	assert.ErrorContains(t, err, "directory")

	mem, err := sqliteConfig("")
	require.NoError(t, err)
	assert.Equal(t, "memory", mem.ConnectAttributes["mode"])
}
