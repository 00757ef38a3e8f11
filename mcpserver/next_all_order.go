package mcpserver

import (
	"cmp"
	"slices"
	"time"

	"github.com/prmonitor/prmonitor/statemachine"
)

// The order of next_step "all": which monitor's action goes out first, and what counts as news.

// firstWaiting is the monitor whose action has waited longest on the agent, nil when none waits.
// An action already handed out (and not answered since) counts only with handed, and then after
// every one not handed out yet: a ready with monitor_id=all asks for the next thing to do, and no
// pull request starves another.
func (s *Server) firstWaiting(ms []*monitor, handed bool) *monitor {
	type cand struct {
		m             *monitor
		handed        int
		since, served time.Time
	}
	var cs []cand
	quiet := !s.quietUntil().IsZero()
	for _, m := range ms {
		m.mu.Lock()
		waiting := !m.waitingSince.IsZero() && (!m.ended || m.endUnseen)
		if quiet && waiting && m.m.Pending().Kind == statemachine.ActionAskUser {
			waiting = false // quiet hours: questions wait, tasks go on
		}
		c := cand{m: m, since: m.waitingSince, served: m.servedAt}
		if !m.servedAt.IsZero() && m.servedStep == m.steps {
			c.handed = 1
		}
		m.mu.Unlock()
		if waiting && (handed || c.handed == 0) {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return nil
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if c := cmp.Compare(a.handed, b.handed); c != 0 {
			return c
		}
		if a.handed == 1 { // handed out before: round robin, least recently served first
			return cmp.Or(a.served.Compare(b.served), cmp.Compare(a.m.id, b.m.id))
		}
		return cmp.Or(a.since.Compare(b.since), cmp.Compare(a.m.id, b.m.id))
	})
	return cs[0].m
}

// served records that monitor_id=all handed out m's action.
func (s *Server) served(m *monitor) {
	s.every.handedOut(m.id)
	m.mu.Lock()
	m.servedAt, m.servedStep = s.cfg.Now(), m.steps
	m.mu.Unlock()
}

// hasNews says whether a scan should drive m: it starts, has GitHub work, was asked to poll now,
// or the watcher has a snapshot it has not seen.
func (m *monitor) hasNews(w watcherView) bool {
	m.mu.Lock()
	idle := m.m.Position().Node.State() == statemachine.StateIdle
	act := m.m.Pending()
	seen, fresh := m.seen, m.fresh != nil
	m.mu.Unlock()
	if idle || fresh || act.Kind == statemachine.ActionServer || act.PollNow {
		return true
	}
	if act.Kind != statemachine.ActionPolling {
		return false
	}
	u, ok := w.Latest(m.ref)
	return ok && u.Seq > seen
}

// pendingPoll is the pending action, with PollNow kept while a start snapshot is unused.
func (m *monitor) pendingPoll() statemachine.Action {
	act := m.pending()
	m.mu.Lock()
	defer m.mu.Unlock()
	if act.Kind == statemachine.ActionPolling && m.fresh != nil {
		act.PollNow = true
	}
	return act
}

// noteWaiting starts the wait of a monitor that waits on the agent or the user without a start
// time: one resumed from the state directory (a restarted server hands its action out again).
func (m *monitor) noteWaiting(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.waitingSince.IsZero() || m.ended {
		return
	}
	if k := m.m.Pending().Kind; k != statemachine.ActionPolling && k != statemachine.ActionServer {
		m.waitingSince = now
	}
}
