package mcpserver

import (
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// attach returns the live monitor for ref, resuming a saved one or starting a new one. resumed
// says whether an earlier monitor's place was kept.
func (s *Server) attach(ref prstatus.PRRef) (*monitor, bool, error) {
	id := monitorID(ref.String())
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.monitors[id]; ok && !m.isEnded() {
		return m, true, nil
	}
	release, err := s.cfg.State.Claim(id)
	if err != nil {
		return nil, false, err
	}
	m := &monitor{id: id, ref: ref, created: s.cfg.Now(), state: s.cfg.State, log: s.cfg.Logger, release: release}
	saved, ok, err := s.cfg.State.Load(id)
	if err != nil {
		release()
		return nil, false, fmt.Errorf("load monitor %s: %w", id, err)
	}
	resumed := false
	if ok && !saved.Stopped {
		machine, rerr := statemachine.Restore(s.cfg.Machine, saved.Position)
		if rerr == nil {
			m.m, m.created, resumed = machine, saved.CreatedAt, true
		} else {
			s.cfg.Logger.Warn("saved monitor cannot be resumed; starting fresh", "monitor", id, "err", rerr)
			_ = s.cfg.State.SetAside(id, rerr.Error())
		}
	}
	if m.m == nil {
		m.m = statemachine.New(s.cfg.Machine, statemachine.Monitor{ID: id, Ref: ref})
	}
	s.monitors[id] = m
	m.mu.Lock()
	m.persistLocked()
	m.mu.Unlock()
	m.state.Log(id, "lifecycle", fmt.Sprintf("monitor attached (resumed=%v)", resumed), nil)
	return m, resumed, nil
}

// monitorID is the canonical id of a monitor: GitHub ignores case in owner and repository names,
// so Acme/Widgets#7 and acme/widgets#7 are one monitor.
func monitorID(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// lookup finds a live or ended monitor by id, in any spelling.
func (s *Server) lookup(id string) (*monitor, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.monitors[monitorID(id)]
	return m, ok
}

// all lists the monitors, in a stable order.
func (s *Server) all() []*monitor {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*monitor, 0, len(s.monitors))
	for _, m := range s.monitors {
		out = append(out, m)
	}
	sortMonitors(out)
	return out
}

func (m *monitor) isEnded() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ended
}

// end stops the monitor for good in this process: the machine records the stop, the claim is
// released, the saved history stays.
func (s *Server) end(m *monitor) (statemachine.Action, error) {
	m.cancelActive()
	act, err := m.step(s.cfg.Now(), statemachine.StopInput())
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.release != nil {
		m.release()
		m.release = nil
	}
	return act, err
}
