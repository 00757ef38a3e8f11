package mcpserver

import (
	"fmt"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/statemachine"
)

// A user who is away (serve --notify): a question that waits for the user gets a desktop
// notification (Config.Notify) when the host cannot show it (the agent is handed it to ask: the
// user may not be looking at the agent), and when the host shows it but nobody answers within
// Config.NotifyAfter (the user is not at the terminal). One per question, never in quiet hours
// (no question reaches the user then; it is asked, and notified, when they end), and only while
// the question is still the one open. The text is the server's own words: the pull request's
// reference and what the question is about, never text from GitHub.

// Notifier shows the user a desktop notification. The server's is cross-platform
// (cmd/prmonitor); tests observe it with their own.
type Notifier interface {
	Notify(title, message string) error
}

// DefaultNotifyAfter is how long a question the host shows waits for an answer before the user
// gets a desktop notification.
const DefaultNotifyAfter = 2 * time.Minute

// notices sends the desktop notifications of one server.
type notices struct {
	s *Server

	mu    sync.Mutex
	sent  map[string]bool        // by monitor and question seq: each question once
	timer map[string]*time.Timer // by monitor: the question the host shows, until it is answered
}

func newNotices(s *Server) *notices {
	return &notices{s: s, sent: map[string]bool{}, timer: map[string]*time.Timer{}}
}

// asked is a question of m's reaching the user: through the agent (now), or in the host's form
// (after NotifyAfter, unless answered first: settled).
func (n *notices) asked(m *monitor.Monitor, q *elicitation.Question, hostShows bool) {
	if n.s.cfg.Notify == nil || q == nil {
		return
	}
	if !hostShows {
		n.send(m, *q)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if t := n.timer[m.ID]; t != nil {
		t.Stop()
	}
	q2 := *q
	n.timer[m.ID] = time.AfterFunc(n.s.cfg.NotifyAfter, func() { n.send(m, q2) })
}

// settled: an answer to m's question came (or the call that showed it ended without one).
func (n *notices) settled(m *monitor.Monitor) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if t := n.timer[m.ID]; t != nil {
		t.Stop()
		delete(n.timer, m.ID)
	}
}

// send notifies the user of q, once, while it is m's open question and the hours are not quiet.
func (n *notices) send(m *monitor.Monitor, q elicitation.Question) {
	act := m.Pending()
	if act.Kind != statemachine.ActionAskUser || act.Question == nil || act.Question.Seq != q.Seq || !n.s.quietUntil().IsZero() {
		return
	}
	key := fmt.Sprintf("%s %d", m.ID, q.Seq)
	n.mu.Lock()
	if n.sent[key] {
		n.mu.Unlock()
		return
	}
	n.sent[key] = true
	n.mu.Unlock()
	msg := fmt.Sprintf("%s: %s. Answer it in your agent session.", m.Ref, purpose(&q))
	if err := n.s.cfg.Notify.Notify("prmonitor: a question waits for you", msg); err != nil {
		n.s.cfg.Logger.Warn("could not show a desktop notification", "monitor", m.ID, "err", err)
		return
	}
	m.Note("notify", fmt.Sprintf("desktop notification: question %d waits for the user", q.Seq), nil)
}
