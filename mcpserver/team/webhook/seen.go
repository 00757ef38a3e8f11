package webhook

import (
	"sync"
	"time"
)

// seen remembers delivery ids for a window, at most max of them (oldest forgotten first).
type seen struct {
	mu     sync.Mutex
	window time.Duration
	max    int
	at     map[string]time.Time
	order  []string
}

func newSeen(window time.Duration, max int) *seen {
	return &seen{window: window, max: max, at: map[string]time.Time{}}
}

// has reports whether id was recorded within the window before now.
func (s *seen) has(id string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.at[id]
	return ok && now.Sub(at) < s.window
}

// add records id at now.
func (s *seen) add(id string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.at[id]; !ok {
		s.order = append(s.order, id)
	}
	s.at[id] = now
	for len(s.order) > 0 && (len(s.order) > s.max || now.Sub(s.at[s.order[0]]) >= s.window) {
		delete(s.at, s.order[0])
		s.order = s.order[1:]
	}
}
