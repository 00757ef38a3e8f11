package ghclient

import (
	"context"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// Gate is a token's "not before" gate: the times GitHub named (Retry-After, a secondary limit's
// minute, a primary limit's reset) before which no request may go out, for the whole token or
// for one of its rate-limit resources. Every request of a Client passes it; a watcher or a
// budget governor that shares the token shares the Gate. With a GateStore the holds survive a
// restart, so a new process does not hammer GitHub the moment it starts.
//
// Gate is safe for concurrent use.
type Gate struct {
	store GateStore
	now   func() time.Time
	log   *slog.Logger

	mu    sync.Mutex
	holds map[string]Hold
	pace  pacer // the token's writes (pace.go)
}

// Hold is one reason not to send requests before a time.
type Hold struct {
	Until  time.Time `json:"until"`
	Reason string    `json:"reason"`
}

// ScopeToken holds every request of the token (Retry-After, secondary limits). Any other scope is
// a rate-limit resource as GitHub names it in X-RateLimit-Resource: "graphql", "core", ...
const ScopeToken = ""

// GateStore keeps a Gate's holds across restarts. Both methods see and give every scope's hold.
type GateStore interface {
	LoadGate() (map[string]Hold, error)
	SaveGate(map[string]Hold) error
}

// NewGate returns a gate with the holds store kept (those not yet over), or an empty one when
// store is nil. now is the clock (nil: time.Now); logger receives a warning when the store
// fails (nil: discarded). A store that cannot be read starts the gate open: GitHub will say again.
func NewGate(store GateStore, now func() time.Time, logger *slog.Logger) *Gate {
	if now == nil {
		now = time.Now
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	g := &Gate{store: store, now: now, log: logger, holds: map[string]Hold{}}
	if store == nil {
		return g
	}
	saved, err := store.LoadGate()
	if err != nil {
		logger.Warn("could not read the saved rate-limit holds; starting without them", "err", err)
		return g
	}
	at := now()
	for scope, h := range saved {
		if h.Until.After(at) {
			g.holds[scope] = h
		}
	}
	return g
}

// Hold closes the gate for scope until the given time. It only ever extends a hold: an earlier
// time than the one in force changes nothing.
func (g *Gate) Hold(scope string, until time.Time, reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if h, ok := g.holds[scope]; ok && !until.After(h.Until) {
		return
	}
	g.holds[scope] = Hold{Until: until.UTC(), Reason: reason}
	g.saveLocked()
}

// NotBefore is the hold in force for a request to resource (the token's or the resource's,
// whichever ends later); ok is false when the gate is open.
func (g *Gate) NotBefore(resource string) (Hold, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	at := g.now()
	var out Hold
	for _, scope := range []string{ScopeToken, resource} {
		if h, ok := g.holds[scope]; ok && h.Until.After(at) && h.Until.After(out.Until) {
			out = h
		}
	}
	return out, !out.Until.IsZero()
}

// served drops the holds on resource (and on the token) that end by until: the caller waited
// that long. With a real clock they are over anyway; this keeps a stopped test clock honest.
func (g *Gate) served(resource string, until time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, scope := range []string{ScopeToken, resource} {
		if h, ok := g.holds[scope]; ok && !h.Until.After(until) {
			delete(g.holds, scope)
		}
	}
}

func (g *Gate) saveLocked() {
	if g.store == nil {
		return
	}
	if err := g.store.SaveGate(maps.Clone(g.holds)); err != nil {
		g.log.Warn("could not save the rate-limit hold; a restart would not know it", "err", err)
	}
}

// fits reports whether a wait of d ends before ctx's deadline (always, without one). Deadlines
// are wall-clock times, so this reads the wall clock, not Config.Now.
func fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || d <= time.Until(dl)
}
