package monitor

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The server's monitors: those of this process, and those an earlier process saved in the state
// directory, which a call that names one resumes.

// Registry holds a process's monitors, by id, and resumes the ones an earlier process saved.
type Registry struct {
	state   Persister
	machine statemachine.Config
	consent contract.Policy
	now     func() time.Time
	logger  *slog.Logger

	mu       sync.Mutex
	monitors map[string]*Monitor
}

// NewRegistry is an empty registry whose monitors are kept in state, run with machine, and
// apply consent to the answers the agent relays.
func NewRegistry(state Persister, machine statemachine.Config, consent contract.Policy, now func() time.Time, logger *slog.Logger) *Registry {
	return &Registry{state: state, machine: machine, consent: consent, now: now, logger: logger, monitors: map[string]*Monitor{}}
}

// Attach returns the live monitor for ref, resuming a saved one or starting a new one. resumed
// says whether an earlier monitor's place was kept.
func (r *Registry) Attach(ref prstatus.PRRef) (*Monitor, bool, error) {
	id := ID(ref.String())
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.monitors[id]; ok && !m.IsEnded() {
		return m, true, nil
	}
	saved, ok, release, err := r.load(id)
	if err != nil {
		return nil, false, err
	}
	var m *Monitor
	if ok && !saved.Stopped {
		m = r.restore(id, saved, release)
	}
	resumed := m != nil
	if m == nil {
		m = New(id, ref, r.now(), statemachine.New(r.machine, statemachine.Monitor{ID: id, Ref: ref}), r.state, r.logger, release, r.consent)
	}
	r.register(m, fmt.Sprintf("monitor attached (resumed=%v)", resumed))
	return m, resumed, nil
}

// load claims monitor id for this process and reads its saved record; the caller owns release.
func (r *Registry) load(id string) (store.Record, bool, func(), error) {
	release, err := r.state.Claim(id)
	if err != nil {
		return store.Record{}, false, nil, err
	}
	saved, ok, err := r.state.Load(id)
	if err != nil {
		release()
		return store.Record{}, false, nil, fmt.Errorf("load monitor %s: %w", id, err)
	}
	return saved, ok, release, nil
}

// restore builds a monitor at its saved position, holding release; nil when the position cannot
// be resumed (it is set aside, and the monitor starts fresh).
func (r *Registry) restore(id string, saved store.Record, release func()) *Monitor {
	machine, err := statemachine.Restore(r.machine, saved.Position)
	if err != nil {
		r.logger.Warn("saved monitor cannot be resumed; starting fresh", "monitor", id, "err", err)
		_ = r.state.SetAside(id, err.Error())
		return nil
	}
	return Resumed(id, saved, machine, r.state, r.logger, release, r.consent)
}

// register makes m the live monitor of its id and saves it. r.mu is held.
func (r *Registry) register(m *Monitor, why string) {
	r.monitors[m.ID] = m
	m.save()
	m.Note("lifecycle", why, nil)
}

// ID is the canonical id of a monitor: GitHub ignores case in owner and repository names,
// so Acme/Widgets#7 and acme/widgets#7 are one monitor.
func ID(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// Lookup finds a monitor by id, in any spelling: a live or ended one of this process, or one an
// earlier process saved in the state directory, which it resumes at its saved position (a stopped
// one stays stopped). ok is false when there is no such monitor; err when it cannot be resumed
// (another process runs it, the state directory cannot be read).
func (r *Registry) Lookup(id string) (*Monitor, bool, error) {
	id = ID(id)
	r.mu.Lock()
	defer r.mu.Unlock()
	if m, ok := r.monitors[id]; ok {
		return m, true, nil
	}
	if _, ok, err := r.state.Peek(id); err != nil || !ok {
		return nil, false, err
	}
	saved, ok, release, err := r.load(id)
	if err != nil {
		return nil, false, err
	}
	var m *Monitor
	if ok {
		m = r.restore(id, saved, release)
	}
	if m == nil {
		release()
		return nil, false, nil
	}
	if m.IsEnded() { // stopped for good: kept for status and a clear answer, claimed by nobody
		m.LetGo()
		r.monitors[id] = m
		return m, true, nil
	}
	r.register(m, "monitor resumed from the state directory by id")
	return m, true, nil
}

// ByID lists this process's monitors, in a stable order.
func (r *Registry) ByID() []*Monitor {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Monitor, 0, len(r.monitors))
	for _, m := range r.monitors {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *Monitor) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// Every lists this process's monitors and resumes every monitor an earlier process saved and did
// not stop. skipped says which could not be resumed and why (another process runs it).
func (r *Registry) Every() (ms []*Monitor, skipped []string) {
	saved, err := r.state.List()
	if err != nil {
		skipped = append(skipped, "the saved monitors: "+text.Error(err))
	}
	for _, sv := range saved {
		id := ID(sv.Ref.String())
		if _, live := r.Live(id); live || sv.Stopped {
			continue
		}
		if _, _, err := r.Lookup(id); err != nil {
			skipped = append(skipped, id+": "+text.Error(err))
		}
	}
	return r.ByID(), skipped
}

// Live returns this process's monitor of id, if any.
func (r *Registry) Live(id string) (*Monitor, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.monitors[ID(id)]
	return m, ok
}

// LetAllGo cancels every call driving a monitor and gives up every claim (shutdown): the monitors
// stay saved.
func (r *Registry) LetAllGo() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.monitors {
		m.StopCall()
		m.LetGo()
	}
}
