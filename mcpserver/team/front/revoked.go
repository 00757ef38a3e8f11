package front

import (
	"sync"
	"time"
)

// revoked are the board sessions signed out before their end. An entry is kept until the session
// would have ended anyway (its cookie is refused for its age from then on), so the set holds at
// most the sessions signed out within one session's lifetime.
type revoked struct {
	mu    sync.Mutex
	until map[string]time.Time
}

// maxRevoked bounds the set; past it the revocations nearest their end anyway are dropped first.
const maxRevoked = 100_000

func newRevoked() *revoked { return &revoked{until: map[string]time.Time{}} }

func (r *revoked) add(id string, until, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, u := range r.until {
		if !u.After(now) {
			delete(r.until, k)
		}
	}
	for len(r.until) >= maxRevoked {
		soonest, at := "", time.Time{}
		for k, u := range r.until {
			if soonest == "" || u.Before(at) {
				soonest, at = k, u
			}
		}
		delete(r.until, soonest)
	}
	r.until[id] = until
}

func (r *revoked) has(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.until[id]
	return ok
}
