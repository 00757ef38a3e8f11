package monitor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// Persister keeps monitors across restarts: only what GitHub cannot tell the server (docs/architecture.md#where-state-lives).
// It speaks the store's one record type: what survives a restart for one monitor is a
// store.Record (its ref, position, stopped flag and creation time; the Persister fills in the
// rest).
type Persister interface {
	// Claim takes the exclusive right to run monitor id in this process; another process holding
	// it is a clear error.
	Claim(id string) (release func(), err error)
	// Load returns the saved monitor. A corrupt record is set aside and reported as absent.
	Load(id string) (store.Record, bool, error)
	// Peek returns the saved monitor without claiming it (read-only); an unusable record is
	// reported as absent and left alone.
	Peek(id string) (store.Record, bool, error)
	// List returns every saved monitor, by id, without claiming any.
	List() ([]store.Record, error)
	// Save replaces the record atomically.
	Save(id string, s store.Record) error
	// SetAside moves a record the server cannot resume out of the way.
	SetAside(id, reason string) error
	// Log appends to the monitor's event log (best effort).
	Log(id string, e store.Event)
}

// ErrInUse means another process runs this monitor.
var ErrInUse = errors.New("monitor in use by another prmonitor process")

// MemoryState is a Persister that forgets everything when the process ends: for the demo and
// for tests that do not test restarts.
type MemoryState struct {
	mu      sync.Mutex
	saved   map[string]store.Record
	claimed map[string]bool
	events  map[string][]store.Event
}

// NewMemoryState returns an empty in-memory Persister.
func NewMemoryState() *MemoryState {
	return &MemoryState{saved: map[string]store.Record{}, claimed: map[string]bool{}, events: map[string][]store.Event{}}
}

// Claim implements Persister.
func (m *MemoryState) Claim(id string) (func(), error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.claimed[id] {
		return nil, fmt.Errorf("%w: %s", ErrInUse, id)
	}
	m.claimed[id] = true
	return func() { m.mu.Lock(); delete(m.claimed, id); m.mu.Unlock() }, nil
}

// Load implements Persister.
func (m *MemoryState) Load(id string) (store.Record, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.saved[id]
	return s, ok, nil
}

// Save implements Persister.
func (m *MemoryState) Save(id string, r store.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r.MonitorID = id
	m.saved[id] = r
	return nil
}

// Peek implements Persister.
func (m *MemoryState) Peek(id string) (store.Record, bool, error) { return m.Load(id) }

// List implements Persister.
func (m *MemoryState) List() ([]store.Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]store.Record, 0, len(m.saved))
	for _, s := range m.saved {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b store.Record) int { return strings.Compare(a.MonitorID, b.MonitorID) })
	return out, nil
}

// SetAside implements Persister.
func (m *MemoryState) SetAside(id, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.saved, id)
	return nil
}

// Log implements Persister.
func (m *MemoryState) Log(id string, e store.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.events[id] = append(m.events[id], e)
}

// Events returns the logged events of a monitor as "kind: summary" lines, for tests.
func (m *MemoryState) Events(id string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.events[id]))
	for i, e := range m.events[id] {
		out[i] = string(e.Kind) + ": " + e.Summary
	}
	return out
}

// Logged returns the logged events of a monitor as they were given, for tests.
func (m *MemoryState) Logged(id string) []store.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.events[id])
}
