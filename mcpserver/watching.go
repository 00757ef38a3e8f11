package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

// The server's one watcher (prstatus/watch) reads GitHub for every monitor, whether or not a call
// waits; calls wait on its updates. It is made on first use and runs until the server shuts down.

// watcherView is what a scan reads of the watcher.
type watcherView interface {
	Latest(ref prstatus.PRRef) (watch.Update, bool)
}

// watcher returns the server's watcher, starting it on first use. Its Connect is the server's:
// the token is resolved when the watcher first reads GitHub, and a failure reaches the waiting
// calls as the update of every watched pull request.
func (s *Server) watcher() (*watch.Watcher, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w != nil {
		return s.w, nil
	}
	cfg := s.cfg.Watch
	cfg.Connect = func(ctx context.Context) (watch.Source, error) {
		gh, err := s.github(ctx)
		if err != nil {
			return nil, errors.New(githubCause(err))
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
	go func() {
		if err := w.Run(s.life); err != nil && !errors.Is(err, context.Canceled) {
			s.cfg.Logger.Error("the watcher stopped", "err", err)
		}
	}()
	return w, nil
}

// watching is the watcher if it runs (nil before the first monitor).
func (s *Server) watching() *watch.Watcher {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.w
}

// watchMonitor has the watcher watch m's pull request.
func (s *Server) watchMonitor(m *monitor) {
	if w, err := s.watcher(); err == nil {
		w.Add(m.ref)
	}
}

// unwatch stops watching m's pull request.
func (s *Server) unwatch(m *monitor) {
	if w := s.watching(); w != nil {
		w.Remove(m.ref)
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

// waitSlots bounds how many calls may block at once: the transport runs tool calls on a fixed
// pool of workers, and a blocked call holds one; the rest stay free so that pr_monitor_status and
// pr_monitor_stop answer whatever is blocked.
type waitSlots struct{ ch chan struct{} }

func newWaitSlots(n int) *waitSlots { return &waitSlots{ch: make(chan struct{}, max(n, 1))} }

// acquire takes a slot without waiting; ok is false when every slot is taken.
func (w *waitSlots) acquire() (func(), bool) {
	select {
	case w.ch <- struct{}{}:
		return func() { <-w.ch }, true
	default:
		return nil, false
	}
}

func (w *waitSlots) size() int { return cap(w.ch) }

// waiters is how many of workers calls may block: all but a reserve for the calls that must
// answer at once (an eighth, at least 2, at most 16; at least one may wait).
func waiters(workers int) int {
	reserve := min(max(workers/8, 2), 16)
	return max(workers-reserve, 1)
}
