package mcpserver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// The server's monitors: those of this process, and those an earlier process saved in the state
// directory, which a call that names one resumes.

// attach returns the live monitor for ref, resuming a saved one or starting a new one. resumed
// says whether an earlier monitor's place was kept.
func (s *Server) attach(ref prstatus.PRRef) (*monitor, bool, error) {
	id := monitorID(ref.String())
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.monitors[id]; ok && !m.isEnded() {
		return m, true, nil
	}
	saved, ok, release, err := s.load(id)
	if err != nil {
		return nil, false, err
	}
	var m *monitor
	if ok && !saved.Stopped {
		m = s.restore(id, saved, release)
	}
	resumed := m != nil
	if m == nil {
		m = newMonitor(id, ref, s.cfg.Now(), statemachine.New(s.cfg.Machine, statemachine.Monitor{ID: id, Ref: ref}), s.cfg.State, s.cfg.Logger, release)
	}
	s.register(m, fmt.Sprintf("monitor attached (resumed=%v)", resumed))
	return m, resumed, nil
}

// load claims monitor id for this process and reads its saved record; the caller owns release.
func (s *Server) load(id string) (store.Record, bool, func(), error) {
	release, err := s.cfg.State.Claim(id)
	if err != nil {
		return store.Record{}, false, nil, err
	}
	saved, ok, err := s.cfg.State.Load(id)
	if err != nil {
		release()
		return store.Record{}, false, nil, fmt.Errorf("load monitor %s: %w", id, err)
	}
	return saved, ok, release, nil
}

// restore builds a monitor at its saved position, holding release; nil when the position cannot
// be resumed (it is set aside, and the monitor starts fresh).
func (s *Server) restore(id string, saved store.Record, release func()) *monitor {
	machine, err := statemachine.Restore(s.cfg.Machine, saved.Position)
	if err != nil {
		s.cfg.Logger.Warn("saved monitor cannot be resumed; starting fresh", "monitor", id, "err", err)
		_ = s.cfg.State.SetAside(id, err.Error())
		return nil
	}
	return resumedMonitor(id, saved, machine, s.cfg.State, s.cfg.Logger, release)
}

// register makes m the live monitor of its id and saves it. s.mu is held.
func (s *Server) register(m *monitor, why string) {
	s.monitors[m.id] = m
	m.save()
	m.note("lifecycle", why, nil)
}

// monitorID is the canonical id of a monitor: GitHub ignores case in owner and repository names,
// so Acme/Widgets#7 and acme/widgets#7 are one monitor.
func monitorID(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// lookup finds a monitor by id, in any spelling: a live or ended one of this process, or one an
// earlier process saved in the state directory, which it resumes at its saved position (a stopped
// one stays stopped). ok is false when there is no such monitor; err when it cannot be resumed
// (another process runs it, the state directory cannot be read).
func (s *Server) lookup(id string) (*monitor, bool, error) {
	id = monitorID(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.monitors[id]; ok {
		return m, true, nil
	}
	if _, ok, err := s.cfg.State.Peek(id); err != nil || !ok {
		return nil, false, err
	}
	saved, ok, release, err := s.load(id)
	if err != nil {
		return nil, false, err
	}
	var m *monitor
	if ok {
		m = s.restore(id, saved, release)
	}
	if m == nil {
		release()
		return nil, false, nil
	}
	if m.isEnded() { // stopped for good: kept for status and a clear answer, claimed by nobody
		m.letGo()
		s.monitors[id] = m
		return m, true, nil
	}
	s.register(m, "monitor resumed from the state directory by id")
	return m, true, nil
}

// monitorsByID lists this process's monitors, in a stable order.
func (s *Server) monitorsByID() []*monitor {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*monitor, 0, len(s.monitors))
	for _, m := range s.monitors {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *monitor) int { return strings.Compare(a.id, b.id) })
	return out
}

// everyMonitor lists this process's monitors and resumes every monitor an earlier process saved
// and did not stop. skipped says which could not be resumed and why (another process runs it).
func (s *Server) everyMonitor() (ms []*monitor, skipped []string) {
	saved, err := s.cfg.State.List()
	if err != nil {
		skipped = append(skipped, "the saved monitors: "+text.Error(err))
	}
	for _, sv := range saved {
		id := monitorID(sv.Ref.String())
		if _, live := s.live(id); live || sv.Stopped {
			continue
		}
		if _, _, err := s.lookup(id); err != nil {
			skipped = append(skipped, id+": "+text.Error(err))
		}
	}
	return s.monitorsByID(), skipped
}

// live returns this process's monitor of id, if any.
func (s *Server) live(id string) (*monitor, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.monitors[monitorID(id)]
	return m, ok
}

// end stops the monitor for good in this process: the machine records the stop, the claim is
// released, the saved history stays.
func (s *Server) end(m *monitor) (statemachine.Action, error) {
	m.stopCall()
	s.unwatch(m)
	act, err := m.step(s.cfg.Now(), statemachine.StopInput())
	m.letGo()
	return act, err
}
