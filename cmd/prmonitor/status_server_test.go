package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Run by TestStatusTellsAKilledServerFromARunningOne in a process of its own: it takes a
// monitor's claim, as a server does, and dies holding it, as a killed server does.
func TestHelperProcessDiesHoldingAMonitor(t *testing.T) {
	dir, id := os.Getenv("PRMONITOR_HELPER_STATE_DIR"), os.Getenv("PRMONITOR_HELPER_MONITOR")
	if dir == "" {
		t.Skip("run by TestStatusTellsAKilledServerFromARunningOne")
	}
	st, err := store.Open(dir, nil)
	require.NoError(t, err)
	_, err = st.Claim(id)
	require.NoError(t, err)
	os.Exit(0) // no release: the system drops the lock, the pid stays in the lock file
}

// status says whether a server runs each monitor: this process holds one (a running server), a
// process that was killed holding another left its pid behind (no server), and a third was
// released (no server). Those no server runs wait for one, and say so.
func TestStatusTellsAKilledServerFromARunningOne(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	d.add(pr(8), atQuestion)
	d.add(pr(9), atWatchingCI)
	d.release(pr(8))
	d.release(pr(9))

	child := exec.Command(os.Args[0], "-test.run=^TestHelperProcessDiesHoldingAMonitor$")
	child.Env = append(os.Environ(), "PRMONITOR_HELPER_STATE_DIR="+d.dir, "PRMONITOR_HELPER_MONITOR="+pr(8).String())
	out, err := child.CombinedOutput()
	require.NoError(t, err, "%s", out)
	dead := child.Process.Pid
	saved, err := store.NewReader(d.dir, 0).Read()
	require.NoError(t, err)
	names := map[string]string{}
	for _, s := range saved {
		names[s.Record.MonitorID] = s.Name
	}
	require.Equal(t, dead, store.Holder(d.dir, names[pr(8).String()]), "the killed server's pid is still in the lock file")
	require.False(t, processRuns(dead))

	r := statusJSON(t, d.dir)
	pids := map[string]int{}
	for _, m := range r.Monitors {
		pids[m.PR] = m.ServerPID
	}
	assert.Equal(t, map[string]int{"acme/widgets#7": os.Getpid(), "acme/widgets#8": 0, "acme/widgets#9": 0}, pids)
	assert.Equal(t, []statusServer{{PID: os.Getpid(), Monitors: 1}}, r.Servers)
	assert.Equal(t, "acme/widgets#7", r.Monitors[0].PR, "what a running server waits on comes first")

	res := runCLI(t, nil, "status", "--state-dir", d.dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	lines := strings.Split(res.stdout, "\n")
	assert.Equal(t, fmt.Sprintf("A server is running (pid %d) with 1 monitor. 2 monitors have no server: they resume where they were "+
		"when an agent calls pr_monitor_start (or pr_monitor_start_all) again.", os.Getpid()), lines[0])
	assert.Contains(t, res.stdout, "acme/widgets#8  merge conflict: asking you  no server · your answer")
	assert.Contains(t, res.stdout, "acme/widgets#9  watching                    no server · CI to finish")
	assert.NotContains(t, screenLine(res.stdout, "acme/widgets#7"), "no server")
}

// With every server gone, a monitor that had just started says it waits for one, not that it is
// starting.
func TestAMonitorWhoseServerExitedIsNotStartingForever(t *testing.T) {
	d := newStateDir(t)
	id := pr(7).String()
	c, err := d.st.Claim(id)
	require.NoError(t, err)
	m := statemachine.New(statemachine.DefaultConfig(), statemachine.Monitor{ID: id, Ref: pr(7)})
	require.Equal(t, statemachine.NodeIdle, m.Position().Node, "a monitor the agent never called next_step on")
	require.NoError(t, d.st.Save(id, store.Record{Ref: pr(7), API: "https://api.github.com/", CreatedAt: testNow.Add(-3 * time.Hour), Position: m.Position()}))
	require.NoError(t, c.Release())

	res := runCLI(t, nil, "status", "--state-dir", d.dir)
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stdout, "No server is running any of these monitors. The monitor resumes where it was when an agent calls pr_monitor_start")
	assert.Contains(t, res.stdout, "no server · the agent's first call")
}

// A server that marked the directory is listed with what its marker says, once, with the monitors
// it holds; the marker of a process that is gone is not a server.
func TestStatusReadsServerMarkersAndChecksTheyRun(t *testing.T) {
	d := newStateDir(t)
	d.add(pr(7), atQuestion)
	remove, err := d.st.MarkServer("v9.9.9", "https://ghe.example.com/api/v3/")
	require.NoError(t, err)
	t.Cleanup(func() { _ = remove() })
	gone := exec.Command(os.Args[0], "-test.run=^$")
	require.NoError(t, gone.Run())
	require.False(t, processRuns(gone.Process.Pid))
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, fmt.Sprintf("server-%d.json", gone.Process.Pid)),
		fmt.Appendf(nil, `{"schema":1,"pid":%d,"version":"old"}`, gone.Process.Pid), 0o600))

	r := statusJSON(t, d.dir)
	require.Len(t, r.Servers, 1)
	sv := r.Servers[0]
	assert.Equal(t, os.Getpid(), sv.PID)
	assert.Equal(t, 1, sv.Monitors)
	assert.Equal(t, "v9.9.9", sv.Version)
	assert.Equal(t, "https://ghe.example.com/api/v3/", sv.API)
	assert.False(t, sv.StartedAt.IsZero())

	assert.Equal(t, fmt.Sprintf("A server is running (pid %d, started %s) with 1 monitor.", os.Getpid(), clock(sv.StartedAt, testNow)),
		serversSentence(r.Servers, testNow))
	assert.Equal(t, fmt.Sprintf("2 servers are running: pid 11 with no monitor yet; pid %d, started %s with 1 monitor.", os.Getpid(),
		clock(sv.StartedAt, testNow)), serversSentence(append([]statusServer{{PID: 11}}, sv), testNow))
}
