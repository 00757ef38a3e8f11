package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/driver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Push: a Claude Code channel (docs/hosts.md, "Told, not asked"). Without a call that waits, an
// agent learns that a pull request needs it only by calling pr_monitor_next_step again and again:
// every call an agent turn. Claude Code runs MCP servers that declare the claude/channel
// capability as channels: such a server may send notifications/claude/channel at any time, and
// Claude Code shows it to the model as a <channel> event in the running session. So while no call
// waits on a monitor, the server goes on with it by itself (as a monitor_id=all call would: it
// takes the watcher's news and does the GitHub work that needs no one, and stops before anything
// for the agent), and when the monitor comes to an action for the agent (a task, or a question)
// it pushes one event: a line in words that names the pull request and the call to make, and
// meta (monitor_id, pr, action, seq). The agent then calls pr_monitor_next_step, which hands the
// action out (or shows the question to the user through the host).
//
// One event per monitor per new action: the action's key is saved with the monitor (told), so a
// restart never repeats it, and an action a call handed out is not pushed. None while a call waits
// on the monitor or on all of them (monitor_id=all), none in quiet hours (they go out when the
// hours end), none before the action has waited PushGrace for a call to take it, and at most
// pushBurst at once across monitors, then one every pushRefill. Only to Claude Code (PushMode).

// The rate cap across monitors: a burst, then one push every pushRefill.
const (
	pushBurst  = 3
	pushRefill = 10 * time.Second
)

// pushWork bounds the GitHub work of one monitor's background step.
const pushWork = time.Minute

// pusher is the push loop of a server serving stdio.
type pusher struct {
	s *Server

	mu   sync.Mutex
	base context.Context // the stdio session's (bind): what notifications go out on
	// tokens and at are the rate cap's bucket; resumed: the saved monitors were taken up.
	tokens  float64
	at      time.Time
	resumed bool

	// passes counts the passes done, skipped ones included: what a test waits on to know the
	// pusher has considered what it knows now.
	passes atomic.Uint64
}

func newPusher(s *Server) *pusher { return &pusher{s: s, tokens: pushBurst} }

// bind records the stdio session's context.
func (p *pusher) bind(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.base = ctx
}

// run looks for actions to push every PushEvery until ctx ends.
func (p *pusher) run(ctx context.Context) {
	if p.s.cfg.Push == PushOff {
		return
	}
	tick := time.NewTicker(p.s.cfg.PushEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			p.pass()
		}
	}
}

// session is the client the server pushes to, when it may: the session's context, and what the
// client declared.
func (p *pusher) session() (context.Context, *mcp.ClientCapabilities, bool) {
	p.mu.Lock()
	ctx := p.base
	p.mu.Unlock()
	if ctx == nil || ctx.Err() != nil {
		return nil, nil, false
	}
	sess, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo)
	if !ok || !sess.Initialized() {
		return nil, nil, false
	}
	if v, ok := sess.(server.SessionWithProtocolVersion); ok && mcp.IsModernProtocol(v.ProtocolVersion()) {
		return nil, nil, false // 2026-07-28 has no session to push on: no initialize, no unsolicited notification
	}
	caps := sess.GetClientCapabilities()
	if !p.s.cfg.Push.pushesTo(sess.GetClientInfo(), &caps) {
		return nil, nil, false
	}
	return ctx, &caps, true
}

// pass advances every monitor no call drives and pushes the actions that wait on the agent.
func (p *pusher) pass() {
	defer p.passes.Add(1)
	ctx, caps, ok := p.session()
	if !ok || !p.s.quietUntil().IsZero() || p.s.sched.waiting() {
		return
	}
	p.takeUpSaved()
	w := p.s.runningWatcher()
	if w == nil {
		return // no monitor yet
	}
	for _, m := range p.s.mons.ByID() {
		if m.IsEnded() {
			continue
		}
		if m.HasNews(w) {
			p.advance(m)
		}
		p.offer(ctx, m, caps)
	}
}

// takeUpSaved resumes, once, the monitors an earlier process saved while it pushed for them
// (their record says what the agent was told) and did not stop, and watches them: a restarted
// server pushes for them too. Those another process runs stay with it, and so do the monitors
// no channel watched: they wait for a call that names them, as ever.
func (p *pusher) takeUpSaved() {
	p.mu.Lock()
	done := p.resumed
	p.resumed = true
	p.mu.Unlock()
	if done {
		return
	}
	saved, err := p.s.cfg.State.List()
	if err != nil {
		p.s.cfg.Logger.Warn("push: could not list the saved monitors", "err", err)
		return
	}
	for _, rec := range saved {
		if rec.Stopped || rec.Pushed == nil {
			continue
		}
		if m, ok, err := p.s.mons.Lookup(rec.Ref.String()); err == nil && ok && !m.IsEnded() {
			p.s.watchMonitor(m)
		}
	}
}

// advance moves m on by the watcher's news, unless a call drives it, as far as it goes without
// the agent.
func (p *pusher) advance(m *monitor.Monitor) {
	ctx, done, ok := m.Claim(p.s.life)
	if !ok {
		return
	}
	defer done()
	call := &toolCall{ctx: ctx, deadline: time.Now().Add(pushWork)}
	d := driver.New(ctx, host{p.s}, call.driverCall(), m, driver.AdvanceOnly, 0)
	defer d.Close()
	if o := d.Advance(); o.Kind == driver.Failed {
		p.s.cfg.Logger.Debug("push: could not advance the monitor", "monitor", m.ID, "err", o.Err)
	}
}

// offer pushes m's open action when it is for the agent, new to it, no call drives m, it has
// waited the grace for a call to take it, and the rate cap allows.
func (p *pusher) offer(ctx context.Context, m *monitor.Monitor, caps *mcp.ClientCapabilities) {
	now := p.s.cfg.Now()
	m.NoteWaiting(now)
	// The monitor's slot is held while its action is read and pushed: a call that comes meanwhile
	// waits the moment it takes, so what is pushed is never read half-way through a call's step
	// (the action before it, the position after: a key the agent was never told, and the task it
	// already has pushed again).
	_, done, ok := m.Claim(p.s.life)
	if !ok {
		return // a call drives it
	}
	defer done()
	act := m.Pending()
	key := actionKey(act, m.Position())
	if key == "" || key == m.ToldKey() {
		return
	}
	if since := m.Turn().Since; since.IsZero() || now.Sub(since) < p.s.cfg.PushGrace {
		return
	}
	if !p.take(now) {
		return
	}
	facts, _ := m.LastFacts()
	ev := channelEvent(m, act, facts, contract.FormElicitation(caps), m.PushCount()+1)
	if err := p.s.mcp.SendNotificationToClient(ctx, channelMethod, ev.params()); err != nil {
		// Not sent (the transport's queue is full): the next pass tries again.
		p.s.cfg.Logger.Warn("push: could not send the channel event", "monitor", m.ID, "err", err)
		return
	}
	seq := m.Told(key, true, now)
	m.Note("push", fmt.Sprintf("pushed a channel event (seq %d): %s", seq, ev.action), nil)
}

// take spends one push of the rate cap, if there is one.
func (p *pusher) take(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.at.IsZero() && now.After(p.at) {
		p.tokens = min(pushBurst, p.tokens+float64(now.Sub(p.at))/float64(pushRefill))
	}
	p.at = now
	if p.tokens < 1 {
		return false
	}
	p.tokens--
	return true
}

// handedOut records that a call handed m's open action to the agent (render): the agent has it,
// and it is not pushed. Only while the server pushes to this client (it saves the monitor).
func (p *pusher) handedOut(m *monitor.Monitor) {
	if _, _, ok := p.session(); !ok {
		return
	}
	if key := actionKey(m.Pending(), m.Position()); key != "" {
		m.Told(key, false, p.s.cfg.Now())
	}
}

// attached records that an agent started (or resumed) m while the server pushes to it: the
// monitor is watched on a channel from now on (takeUpSaved), and the agent has the action the
// start showed it (its pending action), if any.
func (p *pusher) attached(m *monitor.Monitor) {
	if _, _, ok := p.session(); !ok {
		return
	}
	key := actionKey(m.Pending(), m.Position())
	if key == "" {
		key = attachedKey
	}
	m.Told(key, false, p.s.cfg.Now())
}

// attachedKey is what the agent was told of a monitor it started that waits on no one yet.
const attachedKey = "attached"

// actionKey names an open action the agent is told of: a task (its start) or a question (its
// seq); "" for anything else (polling, the server's own work, an ended monitor).
func actionKey(act statemachine.Action, pos statemachine.Position) string {
	switch act.Kind {
	case statemachine.ActionExecute:
		if id := monitor.TaskID(pos); id != "" {
			return "task " + id
		}
		return "task " + string(act.Task) + " at " + string(act.Node)
	case statemachine.ActionAskUser:
		if act.Question != nil {
			return fmt.Sprintf("question %d", act.Question.Seq)
		}
	}
	return ""
}
