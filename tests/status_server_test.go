package tests

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// A running server is visible to `prmonitor status` before it holds any monitor: it marks the
// state directory (server-<pid>.json, private to the user) with when it started, its version and
// the GitHub it watches. Every way a host ends it (its input closed, SIGTERM, SIGINT) takes the
// marker away; a killed server's marker is left behind, status does not count it (its process is
// gone), and the next server removes it.
func TestStatusSeesARunningServerBeforeItHoldsAMonitor(t *testing.T) {
	for _, how := range []string{"stdin closed", "SIGTERM", "SIGINT", "killed"} {
		t.Run(how, func(t *testing.T) {
			w := newWorld(t, profiles[2])
			before := time.Now().Add(-time.Second)
			w.launch()
			pid := w.cmd.Process.Pid
			marker := filepath.Join(w.stateDir, "server-"+strconv.Itoa(pid)+".json")
			info, err := os.Stat(marker)
			require.NoError(t, err, "the server marked the state directory")
			if runtime.GOOS != "windows" {
				assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
			}

			st := w.status()
			assert.Empty(t, st.Monitors)
			require.Len(t, st.Servers, 1)
			sv := st.Servers[0]
			assert.Equal(t, pid, sv.PID)
			assert.Zero(t, sv.Monitors)
			assert.WithinRange(t, sv.StartedAt, before, time.Now())
			assert.Equal(t, "dev", sv.Version)
			assert.True(t, strings.HasPrefix(sv.API, w.fake.URL()), "%s watches %s", sv.API, w.fake.URL())
			assert.Contains(t, statusText(t, w.stateDir), "A server is running (pid "+strconv.Itoa(pid)+", started ")
			assert.Contains(t, statusText(t, w.stateDir), ") with no monitor yet.")

			switch how {
			case "SIGTERM":
				require.NoError(t, w.cmd.Process.Signal(syscall.SIGTERM))
			case "SIGINT":
				require.NoError(t, w.cmd.Process.Signal(os.Interrupt))
			case "killed":
				require.NoError(t, w.cmd.Process.Kill())
			}
			_ = w.session.Close() // closes the server's input and waits for it to exit
			w.session = nil
			require.NotNil(t, w.cmd.ProcessState, "the server exited")
			assert.Empty(t, w.status().Servers, "no server runs")
			assert.Contains(t, statusText(t, w.stateDir), "No monitors saved in ")
			assert.NotContains(t, statusText(t, w.stateDir), "A server is running")

			if how != "killed" {
				assert.NoFileExists(t, marker, "the server took its marker away")
				return
			}
			assert.FileExists(t, marker, "a killed server cannot remove its marker")
			w.launch()
			assert.NoFileExists(t, marker, "the next server removed the marker of the one that is gone")
			require.Len(t, w.status().Servers, 1)
			assert.Equal(t, w.cmd.Process.Pid, w.status().Servers[0].PID)
		})
	}
}

// A server that holds monitors is one server in status, whether it is seen by its marker or by its
// monitors' locks.
func TestStatusCountsAServerByItsMarkerAndItsMonitorsOnce(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
	w.launch()
	w.start()
	st := w.status()
	require.Len(t, st.Servers, 1)
	assert.Equal(t, w.cmd.Process.Pid, st.Servers[0].PID)
	assert.Equal(t, 1, st.Servers[0].Monitors)
	assert.False(t, st.Servers[0].StartedAt.IsZero(), "its marker was read")
	require.Len(t, st.Monitors, 1)
	assert.Equal(t, w.cmd.Process.Pid, st.Monitors[0].ServerPID)
}

// statusText runs the built binary's `status` on dir and returns what it printed.
func statusText(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command(binary, "status", "--state-dir", dir)
	cmd.Env = []string{"HOME=" + dir, "PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	require.NoError(t, err)
	return string(out)
}
