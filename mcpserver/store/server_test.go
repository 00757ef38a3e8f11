package store_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// A server's marker names its process, when it started, its version and the API it watches
// through; it is private to the user, reads back as written, and is gone once removed (twice is
// fine: every shutdown path removes it).
func TestAServerMarksTheDirectoryWhileItRuns(t *testing.T) {
	f := newFixture(t)
	remove, err := f.MarkServer("v1.2.3", "https://api.github.com/")
	require.NoError(t, err)
	name := "server-" + strconv.Itoa(os.Getpid()) + ".json"
	assert.Equal(t, []string{name}, f.files(t))
	if runtime.GOOS != "windows" {
		info, err := os.Stat(filepath.Join(f.dir, name))
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
	}

	got, err := store.ReadServers(f.dir)
	require.NoError(t, err)
	assert.Equal(t, []store.Server{{Schema: store.ServerSchema, PID: os.Getpid(), StartedAt: t0, Version: "v1.2.3",
		API: "https://api.github.com/"}}, got)

	require.NoError(t, remove())
	assert.Empty(t, f.files(t))
	require.NoError(t, remove(), "removing it again is no error")
	got, err = store.ReadServers(f.dir)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// A marker is no monitor: listing the monitors, for the server or for status, neither reports it
// as an unreadable record nor sets it aside.
func TestAServerMarkerIsNeverTakenForAMonitor(t *testing.T) {
	f := newFixture(t)
	f.claim(t, monitorID)
	require.NoError(t, f.Save(monitorID, record(t, monitorID)))
	_, err := f.MarkServer("dev", "https://api.github.com/")
	require.NoError(t, err)
	// A pid of eight digits, as Windows may have, ends in what looks like a file name's hash.
	other := filepath.Join(f.dir, "server-12345678.json")
	require.NoError(t, os.WriteFile(other, []byte(`{"schema":1,"pid":12345678}`), 0o600))

	recs, err := f.List()
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, monitorID, recs[0].MonitorID)
	saved, err := store.NewReader(f.dir, 0).Read()
	require.NoError(t, err)
	require.Len(t, saved, 1)
	assert.Empty(t, saved[0].Problem)
	assert.Empty(t, f.filesWith(t, ".corrupt-"), "nothing was set aside")
	assert.FileExists(t, other)

	// No monitor's files are ever named like a marker, even a monitor whose id reads "server" and
	// whose hash has only digits.
	marker := regexp.MustCompile(`^server-[1-9][0-9]*$`)
	found := false
	for i := range 2000 {
		name := store.FileName("server" + strings.Repeat("!", i))
		assert.NotRegexp(t, marker, name, "the id of %d exclamation marks", i)
		if marker.MatchString(strings.TrimPrefix(name, "_")) {
			found = true
			assert.True(t, store.ValidName(name), "the monitor's own name is still valid")
		}
	}
	assert.True(t, found, "some id among those hashes to digits alone")
}

// What is not a marker of this build is left out: another schema, a pid that is not its name's,
// a link, a directory, anything else that starts with "server-"; a state directory that does
// not exist holds no server.
func TestReadServersSkipsWhatIsNotAMarker(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	write("server-10.json", `{"schema":1,"pid":10,"version":"dev","api":"https://api.github.com/"}`)
	write("server-11.json", `{"schema":2,"pid":11}`)
	write("server-12.json", `{"schema":1,"pid":13}`)
	write("server-14.json", `not json`)
	write("server-015.json", `{"schema":1,"pid":15}`)
	write("server-x.json", `{"schema":1,"pid":16}`)
	write("server-17.json.tmp-1", `{"schema":1,"pid":17}`)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "server-18.json"), 0o700))
	if runtime.GOOS != "windows" {
		require.NoError(t, os.Symlink(filepath.Join(dir, "server-10.json"), filepath.Join(dir, "server-19.json")))
	}

	got, err := store.ReadServers(dir)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, 10, got[0].PID)

	got, err = store.ReadServers(filepath.Join(dir, "nothing", "here"))
	require.NoError(t, err)
	assert.Empty(t, got)
}

// A server that starts removes the markers of servers that are gone (killed: they could not
// remove their own), and leaves those that run.
func TestRemoveServersTakesAwayOnlyTheMarkersOfServersThatAreGone(t *testing.T) {
	dir := t.TempDir()
	for _, pid := range []int{21, 22, 23} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "server-"+strconv.Itoa(pid)+".json"),
			[]byte(`{"schema":1,"pid":`+strconv.Itoa(pid)+`}`), 0o600))
	}
	n, err := store.RemoveServers(dir, func(pid int) bool { return pid != 22 })
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	got, err := store.ReadServers(dir)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, 22, got[0].PID)
}
