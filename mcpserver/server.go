package mcpserver

import (
	"context"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Server is the prmonitor MCP server.
type Server struct {
	cfg  Config
	mcp  *server.MCPServer
	seal *driver.Sealer

	// mons are the server's monitors.
	mons *monitor.Registry

	mu sync.Mutex // guards gh
	gh GitHub

	// life ends when the server shuts down; the watcher runs until then.
	life    context.Context
	endLife context.CancelFunc
	wmu     sync.Mutex
	w       *watch.Watcher
	// watcherDone is closed when the watcher has stopped and saved.
	watcherDone chan struct{}
	waiting     *waitSlots
	sched       *scheduler
	tasks       *taskCalls
	push        *pusher
	notices     *notices
	// fails are the failure signatures of the repositories watched (failures.go).
	fails *failureMemory
}

// MCP exposes the underlying mcp-go server (for in-process tests).
func (s *Server) MCP() *server.MCPServer { return s.mcp }

// Close stops the watcher and every blocked call; monitors stay saved. ServeStdio closes the
// server when it returns.
func (s *Server) Close() { s.shutdown() }

// shutdown stops the watcher and every blocked call and releases every claim; monitors stay saved,
// and so does what the watcher spent and saw: it returns once the watcher's last save is done.
func (s *Server) shutdown() {
	s.endLife()
	s.mons.LetAllGo()
	s.awaitWatcher()
}

// github connects on first use.
func (s *Server) github(ctx context.Context) (GitHub, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gh != nil {
		return s.gh, nil
	}
	gh, err := s.cfg.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if gh == nil {
		return nil, errors.New("no GitHub client")
	}
	s.gh = gh
	return gh, nil
}

// end stops the monitor for good in this process: the machine records the stop, the claim is
// released, the saved history stays.
func (s *Server) end(m *monitor.Monitor) (statemachine.Action, error) {
	m.StopCall()
	s.unwatch(m)
	act, err := m.Step(s.cfg.Now(), statemachine.StopInput())
	m.LetGo()
	return act, err
}

// stdioConsent is the stdio server's consent policy.
func stdioConsent() contract.Policy { return contract.Policy{ConnectionIsHost: true} }
