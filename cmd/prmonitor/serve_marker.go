package main

import (
	"log/slog"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// markServer marks the state directory as served by this process (store.Server: server-<pid>.json)
// so that `prmonitor status` sees the server even before it holds a monitor, after removing the
// markers of servers that no longer run (killed: they could not remove theirs). The returned
// function removes the marker; serve defers it, so every way it stops (its input closed, SIGTERM,
// SIGINT, an error) takes it away. A marker that cannot be written costs only that visibility.
func markServer(st *store.Store, api string, logger *slog.Logger) (unmark func()) {
	gone := func(pid int) bool { return !processRuns(pid) }
	if n, err := store.RemoveServers(st.Dir(), gone); err != nil {
		logger.Warn("could not remove the marker of a server that is gone", "err", err)
	} else if n > 0 {
		logger.Debug("removed the markers of servers that are gone", "count", n)
	}
	remove, err := st.MarkServer(version, api)
	if err != nil {
		logger.Warn("could not mark the state directory as served; status sees this server only through its monitors", "err", err)
		return func() {}
	}
	return func() {
		if err := remove(); err != nil {
			logger.Warn("could not remove this server's marker; the next status or server sees it is gone", "err", err)
		}
	}
}
