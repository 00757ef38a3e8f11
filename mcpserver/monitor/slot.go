package monitor

import (
	"cmp"
	"context"
	"sync"
	"time"
)

// A call slot holds the one tool call that drives something: a monitor (its next_step calls) or
// monitor_id=all (its calls). It is the one place where a call supersedes another: a second
// next_step cancels the first and waits for it to finish, so that two calls never drive one monitor.

// supersedeWait bounds how long a new call waits for the call it supersedes to finish.
const supersedeWait = 30 * time.Second

type CallSlot struct {
	mu     sync.Mutex
	active *call
	// wait bounds the wait for a superseded call (zero: supersedeWait).
	wait time.Duration
}

// call is the tool call holding a slot.
type call struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Supersede makes a new call, under parent, the slot's: the call holding it is cancelled and
// awaited first. done ends the new call; late says the superseded call did not finish within
// supersedeWait (the new one goes on regardless).
func (s *CallSlot) Supersede(parent context.Context) (ctx context.Context, done func(), late bool) {
	s.mu.Lock()
	for s.active != nil {
		prev := s.active
		prev.cancel()
		s.mu.Unlock()
		select {
		case <-prev.done:
		case <-time.After(cmp.Or(s.wait, supersedeWait)):
			late = true
		}
		s.mu.Lock()
		if s.active == prev {
			s.active = nil
		}
	}
	ctx, done = s.takeLocked(parent)
	return ctx, done, late
}

// claim makes a new call the slot's only if no call holds it.
func (s *CallSlot) claim(parent context.Context) (context.Context, func(), bool) {
	s.mu.Lock()
	if s.active != nil {
		s.mu.Unlock()
		return nil, nil, false
	}
	ctx, done := s.takeLocked(parent)
	return ctx, done, true
}

// cancel stops the call holding the slot, if any.
func (s *CallSlot) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active != nil {
		s.active.cancel()
	}
}

// Busy reports whether a call holds the slot.
func (s *CallSlot) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active != nil
}

// takeLocked gives the slot to a new call; s.mu is held and is released.
func (s *CallSlot) takeLocked(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	c := &call{cancel: cancel, done: make(chan struct{})}
	s.active = c
	s.mu.Unlock()
	return ctx, func() {
		cancel()
		s.mu.Lock()
		if s.active == c {
			s.active = nil
		}
		s.mu.Unlock()
		close(c.done)
	}
}
