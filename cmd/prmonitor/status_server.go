package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Which servers run on a state directory. A server marks the directory while it runs
// (store.Server, server-<pid>.json) and holds a lock on each monitor it runs, with its pid in the
// lock file; a killed server leaves both behind, so each pid is checked against the processes of
// this machine (processRuns).

// runningHolder is the process that holds a monitor's files in dir, when it still runs.
func runningHolder(dir string) func(name string) int {
	return func(name string) int {
		if pid := store.Holder(dir, name); processRuns(pid) {
			return pid
		}
		return 0
	}
}

// runningServers are the servers that marked dir and still run. A marker that cannot be read is
// no server: status says what it can see.
func runningServers(dir string) []store.Server {
	servers, err := store.ReadServers(dir)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(servers, func(s store.Server) bool { return !processRuns(s.PID) })
}

// statusServers are the running servers of the directory, by pid: those that marked it, with the
// monitors each holds, and those that hold monitors without a marker (a build from before markers).
func statusServers(marked []store.Server, held map[int]int) []statusServer {
	out := []statusServer{}
	for _, sv := range marked {
		out = append(out, statusServer{PID: sv.PID, Monitors: held[sv.PID], StartedAt: sv.StartedAt,
			Version: sanitize.Line(sv.Version), API: sanitize.Line(sv.API)})
	}
	for pid, n := range held {
		if !slices.ContainsFunc(marked, func(sv store.Server) bool { return sv.PID == pid }) {
			out = append(out, statusServer{PID: pid, Monitors: n})
		}
	}
	slices.SortFunc(out, func(a, b statusServer) int { return cmp.Compare(a.PID, b.PID) })
	return out
}

// serversSentence says which servers run: "A server is running (pid 4242, started 09:58:03) with
// 2 monitors."
func serversSentence(servers []statusServer, now time.Time) string {
	who := func(sv statusServer) string {
		s := fmt.Sprintf("pid %d", sv.PID)
		if !sv.StartedAt.IsZero() {
			s += ", started " + clock(sv.StartedAt, now)
		}
		return s
	}
	held := func(n int) string {
		if n == 0 {
			return "no monitor yet"
		}
		return text.Count(n, "monitor", "monitors")
	}
	switch len(servers) {
	case 0:
		return "No server is running any of these monitors."
	case 1:
		return fmt.Sprintf("A server is running (%s) with %s.", who(servers[0]), held(servers[0].Monitors))
	}
	each := make([]string, len(servers))
	for i, sv := range servers {
		each[i] = who(sv) + " with " + held(sv.Monitors)
	}
	return fmt.Sprintf("%d servers are running: %s.", len(servers), strings.Join(each, "; "))
}
