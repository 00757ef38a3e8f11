package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// The server's one watcher (prstatus/watch) reads GitHub for every monitor, whether or not a call
// waits; calls wait on its updates. It is made on first use and runs until the server shuts down.

// ensureWatcher returns the server's watcher, starting it on first use. Its Connect is the server's:
// the token is resolved when the watcher first reads GitHub, and a failure reaches the waiting
// calls as the update of every watched pull request.
func (s *Server) ensureWatcher() (*watch.Watcher, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w != nil {
		return s.w, nil
	}
	cfg := s.cfg.Watch
	cfg.Connect = func(ctx context.Context) (watch.Source, error) {
		gh, err := s.github(ctx)
		if err != nil {
			return nil, errors.New(contract.GitHubCause(err))
		}
		return gh, nil
	}
	if cfg.Now == nil {
		cfg.Now = s.cfg.Now
	}
	if cfg.Quiet == nil && s.cfg.Quiet.Enabled() {
		cfg.Quiet = s.cfg.Quiet.Until // quiet hours: the watcher slows down
	}
	if cfg.Logger == nil {
		cfg.Logger = s.cfg.Logger
	}
	w, err := watch.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("start the watcher: %w", err)
	}
	s.w = w
	s.watcherDone = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		if err := w.Run(s.life); err != nil && !errors.Is(err, context.Canceled) {
			s.cfg.Logger.Error("the watcher stopped", "err", err)
		}
	}(s.watcherDone)
	return w, nil
}

// lastSaveWait bounds how long a shutdown waits for the watcher's last save.
const lastSaveWait = 10 * time.Second

// awaitWatcher waits, once the server's life has ended, until the watcher has stopped and saved
// what it spent and saw (watch.Watcher.Run saves as it returns): a process that exits right after
// shutdown keeps its pace for the next start, and leaves no save half-written.
func (s *Server) awaitWatcher() {
	s.wmu.Lock()
	done := s.watcherDone
	s.wmu.Unlock()
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-time.After(lastSaveWait):
		s.cfg.Logger.Warn("the watcher did not stop in time; what it spent since its last save is lost", "waited", lastSaveWait)
	}
}

// runningWatcher is the watcher if it runs (nil before the first monitor), never starting it.
func (s *Server) runningWatcher() *watch.Watcher {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.w
}

// watchMonitor has the watcher watch m's pull request.
func (s *Server) watchMonitor(m *monitor.Monitor) {
	if w, err := s.ensureWatcher(); err == nil {
		w.Add(m.Ref)
	}
}

// unwatch stops watching m's pull request.
func (s *Server) unwatch(m *monitor.Monitor) {
	if w := s.runningWatcher(); w != nil {
		w.Remove(m.Ref)
	}
}

// heldUntil is when the token's rate-limit hold ends (zero: none, or not connected yet).
func (s *Server) heldUntil() time.Time {
	s.mu.Lock()
	gh := s.gh
	s.mu.Unlock()
	g, ok := gh.(interface{ Gate() *ghclient.Gate })
	if !ok || g.Gate() == nil {
		return time.Time{}
	}
	if h, ok := g.Gate().NotBefore("graphql"); ok {
		return h.Until
	}
	return time.Time{}
}
