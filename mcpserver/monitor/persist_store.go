package monitor

import (
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/store"
)

// StoreState persists monitors in a state directory (package store): one record per monitor,
// written atomically after every transition, an event log beside it, and a cross-process claim so
// two servers never write one monitor.
type StoreState struct {
	s   *store.Store
	api string
	now func() time.Time
}

// NewStoreState wraps an open store. api is the REST root monitors are watched through.
func NewStoreState(s *store.Store, api string, now func() time.Time) *StoreState {
	if now == nil {
		now = time.Now
	}
	return &StoreState{s: s, api: api, now: now}
}

// Claim implements Persister.
func (p *StoreState) Claim(id string) (func(), error) {
	c, err := p.s.Claim(id)
	if err != nil {
		return nil, err
	}
	return func() { _ = c.Release() }, nil
}

// Load implements Persister.
func (p *StoreState) Load(id string) (store.Record, bool, error) { return p.s.Load(id) }

// Peek implements Persister.
func (p *StoreState) Peek(id string) (store.Record, bool, error) { return p.s.Peek(id) }

// List implements Persister.
func (p *StoreState) List() ([]store.Record, error) { return p.s.List() }

// Save implements Persister: the record as the monitor gave it, with its id, the REST root it is
// watched through, and why it stopped.
func (p *StoreState) Save(id string, r store.Record) error {
	r.MonitorID = id
	if r.API == "" {
		r.API = p.api
	}
	if r.Stopped && r.StoppedReason == "" {
		r.StoppedReason = "stopped"
	}
	return p.s.Save(id, r)
}

// SetAside implements Persister.
func (p *StoreState) SetAside(id, reason string) error { return p.s.SetAside(id, reason) }

// Log implements Persister: the event, stamped with the server's clock.
func (p *StoreState) Log(id string, e store.Event) {
	if e.At.IsZero() {
		e.At = p.now()
	}
	_ = p.s.Append(id, e)
}
