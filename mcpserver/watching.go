package mcpserver

import (
	"context"
)

// watchMonitor has the server's watcher watch m's pull request.
func (s *Server) watchMonitor(_ context.Context, m *monitor) {
	_ = m
}
