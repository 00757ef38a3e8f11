package mcpserver

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
func (p *StoreState) Load(id string) (Saved, bool, error) {
	r, ok, err := p.s.Load(id)
	if err != nil || !ok {
		return Saved{}, ok, err
	}
	return saved(r), true, nil
}

// Peek implements Persister.
func (p *StoreState) Peek(id string) (Saved, bool, error) {
	r, ok, err := p.s.Peek(id)
	if err != nil || !ok {
		return Saved{}, ok, err
	}
	return saved(r), true, nil
}

// List implements Persister.
func (p *StoreState) List() ([]Saved, error) {
	rs, err := p.s.List()
	if err != nil {
		return nil, err
	}
	out := make([]Saved, len(rs))
	for i, r := range rs {
		out[i] = saved(r)
	}
	return out, nil
}

func saved(r store.Record) Saved {
	return Saved{Ref: r.Ref, Position: r.Position, Stopped: r.Stopped, CreatedAt: r.CreatedAt}
}

// Save implements Persister.
func (p *StoreState) Save(id string, s Saved) error {
	reason := ""
	if s.Stopped {
		reason = "stopped"
	}
	return p.s.Save(id, store.Record{MonitorID: id, Ref: s.Ref, API: p.api, CreatedAt: s.CreatedAt, Stopped: s.Stopped,
		StoppedReason: reason, Position: s.Position})
}

// SetAside implements Persister.
func (p *StoreState) SetAside(id, reason string) error { return p.s.SetAside(id, reason) }

// Log implements Persister.
func (p *StoreState) Log(id, kind, summary string, data any) {
	_ = p.s.Append(id, store.Event{At: p.now(), Kind: store.EventKind(kind), Summary: summary, Data: data})
}
