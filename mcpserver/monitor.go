package mcpserver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// monitor is one watched pull request: its machine, what the last poll saw, and the tool call
// currently driving it.
type monitor struct {
	id      string
	ref     prstatus.PRRef
	created time.Time
	state   Persister
	log     *slog.Logger

	mu      sync.Mutex // guards everything below and serialises machine steps
	m       *statemachine.Machine
	facts   *prstatus.Facts
	factsAt time.Time
	// fresh is the snapshot pr_monitor_start fetched, used once by the first poll so starting a
	// monitor costs one GraphQL request, not two; only while nothing but ready happened since.
	fresh      *prstatus.Facts
	lastAction *ActionOutput
	// handed identifies the last task this process handed to the agent (taskID) since the last
	// pr_monitor_start; a task saved by an earlier process was never handed out by this one.
	handed  string
	release func()
	ended   bool

	// seen is the watcher's last update fed to the machine (or skipped as older than a poke);
	// pokedAt is when the monitor last asked the watcher for a fresh snapshot, at step pokedStep.
	seen      uint64
	freshSeq  uint64
	pokedAt   time.Time
	pokedStep uint64
	steps     uint64
	// dirtyAt is when the monitor last had news GitHub may not show yet: an agent's report (a
	// push), the server's own GitHub work. A snapshot taken before it does not answer PollNow.
	dirtyAt time.Time
	// savedAt is when the record a resumed monitor was restored from was saved; zero when the
	// monitor was not resumed, or once its first poll compared it with the watcher's last read.
	savedAt time.Time
	// waitingSince is when the action the monitor waits on began waiting on the agent or the
	// user (zero while it only polls); servedAt is when monitor_id=all last handed it out.
	// endUnseen: the machine ended the monitor (merged, closed) and no call has said so yet.
	waitingSince time.Time
	servedAt     time.Time
	servedStep   uint64
	endUnseen    bool

	callMu sync.Mutex
	active *call
}

// call is one pr_monitor_next_step invocation driving the monitor.
type call struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// begin makes the calling tool call the one driving the monitor. A call already driving it is
// cancelled and awaited first: a second next_step supersedes the first cleanly.
func (m *monitor) begin(parent context.Context) (context.Context, func()) {
	m.callMu.Lock()
	for m.active != nil {
		prev := m.active
		prev.cancel()
		m.callMu.Unlock()
		select {
		case <-prev.done:
		case <-time.After(30 * time.Second):
			m.log.Warn("superseded call did not finish in time", "monitor", m.id)
		}
		m.callMu.Lock()
		if m.active == prev {
			m.active = nil
		}
	}
	return m.activateLocked(parent)
}

// cancelActive stops whatever call drives the monitor (pr_monitor_stop, shutdown).
func (m *monitor) cancelActive() {
	m.callMu.Lock()
	defer m.callMu.Unlock()
	if m.active != nil {
		m.active.cancel()
	}
}

// step feeds one input to the machine and persists the result. A machine error leaves the
// monitor exactly as it was.
func (m *monitor) step(now time.Time, in statemachine.Input) (statemachine.Action, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	act, err := m.m.Step(now, in)
	if err != nil {
		m.state.Log(m.id, "error", oneLine(err), map[string]any{"input": in.Kind, "event": in.Event, "choice": in.Choice})
		return act, err
	}
	if in.Kind == statemachine.InputPoll {
		f := *in.Facts
		m.facts, m.factsAt = &f, now
	}
	if in.Kind != statemachine.InputPoll && !(in.Kind == statemachine.InputEvent && in.Event == statemachine.EventReady) {
		m.dirtyAt = now
	}
	if !(in.Kind == statemachine.InputEvent && in.Event == statemachine.EventReady) {
		// Anything but the agent's ready (an answer, a finished task that may have pushed, the
		// server's own GitHub work, a newer poll) makes the start snapshot older than GitHub.
		m.fresh = nil
	}
	wasEnded := m.ended
	m.ended = act.Kind == statemachine.ActionStop || act.Kind == statemachine.ActionMerged
	if m.ended && !wasEnded && in.Kind != statemachine.InputStop {
		m.endUnseen = true
	}
	m.steps++
	switch {
	case act.Kind == statemachine.ActionPolling || act.Kind == statemachine.ActionServer:
		m.waitingSince = time.Time{}
	case m.waitingSince.IsZero():
		m.waitingSince = now
	}
	m.persistLocked()
	m.state.Log(m.id, logKind(in), describeStep(in, act), map[string]any{"node": act.Node, "fired": m.m.Fired()})
	return bound(act, actionBudget), nil
}

func (m *monitor) persistLocked() {
	if m.release == nil { // no longer claimed: the record was finalised when the monitor ended
		return
	}
	err := m.state.Save(m.id, store.Record{Ref: m.ref, Position: m.m.Position(), Stopped: m.ended, CreatedAt: m.created})
	if err != nil {
		m.log.Error("could not save the monitor; a restart would lose its place", "monitor", m.id, "err", err)
	}
}

// position is a copy of the machine's position.
func (m *monitor) position() statemachine.Position {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m.Position()
}

// pending is the action the monitor waits on, changing nothing.
func (m *monitor) pending() statemachine.Action {
	m.mu.Lock()
	defer m.mu.Unlock()
	return bound(m.m.Pending(), actionBudget)
}

// takeFresh returns the start snapshot once, if it is still recent.
func (m *monitor) takeFresh(now time.Time, maxAge time.Duration) *prstatus.Facts {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.fresh
	m.fresh = nil
	if f == nil || now.Sub(m.factsAt) > maxAge {
		return nil
	}
	m.seen = max(m.seen, m.freshSeq) // the watcher has the same snapshot: it is not fed twice
	return f
}

// lastFacts is what the last poll saw.
func (m *monitor) lastFacts() (*prstatus.Facts, time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.facts, m.factsAt
}

// taskID identifies a task in progress: its name and when it began.
func taskID(p statemachine.Position) string {
	if p.Task == nil {
		return ""
	}
	return string(p.Task.Name) + "@" + p.Task.StartedAt.UTC().Format(time.RFC3339Nano)
}

// handOut records that the task in progress reached the agent through this process.
func (m *monitor) handOut() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handed = taskID(m.m.Position())
}

// taskHandedOut reports whether this process handed the task in progress (if any) to the agent.
func (m *monitor) taskHandedOut() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := taskID(m.m.Position())
	return id == "" || id == m.handed
}

func (m *monitor) remember(out *ActionOutput) {
	m.mu.Lock()
	m.lastAction = out
	m.mu.Unlock()
}

func logKind(in statemachine.Input) string {
	switch in.Kind {
	case statemachine.InputPoll:
		return "poll"
	case statemachine.InputOutcome, statemachine.InputHead:
		return "github"
	case statemachine.InputEvent:
		if in.Event == statemachine.EventUserChose {
			return "answer"
		}
		return "event"
	case statemachine.InputDecline, statemachine.InputCancel, statemachine.InputFreeform:
		return "answer"
	}
	return "lifecycle"
}

func describeStep(in statemachine.Input, act statemachine.Action) string {
	what := string(in.Kind)
	switch in.Kind {
	case statemachine.InputEvent:
		what = string(in.Event)
		if in.Choice != "" {
			what += " " + string(in.Choice)
		}
	case statemachine.InputPoll:
		what = "poll: " + string(in.Facts.Attention.Kind)
	case statemachine.InputOutcome:
		what = string(in.Outcome.Kind)
		if !in.Outcome.OK {
			what += " failed: " + in.Outcome.Error
		}
	}
	return what + " → " + string(act.Kind) + " at " + string(act.Node)
}

// seenSeq is the last watcher update the monitor took.
func (m *monitor) seenSeq() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen
}

// see takes update u: false when it is not newer than the last one taken, or was read before the
// monitor's last poke (older than the monitor's own work on GitHub).
func (m *monitor) see(u watch.Update) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u.Seq <= m.seen {
		return false
	}
	m.seen = u.Seq
	// The watcher stamps an update when its request went, on the server's clock: a poke's
	// snapshot is never stamped before the poke.
	return !u.At.Before(m.pokedAt)
}

// catchUp pokes the watcher on a resumed monitor's first poll when the watcher read the pull
// request (before the restart too: Watcher.LastRead) after the monitor's record was saved: that
// read's update was published while no call took it, and a restarted watcher, whose saved
// fingerprint is that read's, sees nothing move until a safety refresh.
func (m *monitor) catchUp(w *watch.Watcher, now time.Time) {
	m.mu.Lock()
	saved := m.savedAt
	m.savedAt = time.Time{}
	m.mu.Unlock()
	if saved.IsZero() {
		return
	}
	if read, ok := w.LastRead(m.ref); !ok || !read.After(saved) {
		return
	}
	m.mu.Lock()
	m.pokedStep, m.pokedAt = m.steps, now
	m.mu.Unlock()
	w.Poke(m.ref)
}

// poke asks the watcher for a fresh snapshot, once per machine step that asked to poll now, unless
// the watcher has one the monitor has not seen, taken since the monitor's last news.
func (m *monitor) poke(w *watch.Watcher, now time.Time) {
	m.mu.Lock()
	if m.pokedStep == m.steps && !m.pokedAt.IsZero() {
		m.mu.Unlock()
		return
	}
	if u, ok := w.Latest(m.ref); ok && u.Seq > m.seen && !u.At.Before(m.dirtyAt) && !u.At.Before(m.pokedAt) {
		m.mu.Unlock()
		return
	}
	m.pokedStep, m.pokedAt = m.steps, now
	m.mu.Unlock()
	w.Poke(m.ref)
}

// tryBegin makes the calling tool call the one driving the monitor, unless another call drives
// it: monitor_id=all never supersedes a call waiting on one pull request.
func (m *monitor) tryBegin(parent context.Context) (context.Context, func(), bool) {
	m.callMu.Lock()
	if m.active != nil {
		m.callMu.Unlock()
		return nil, nil, false
	}
	ctx, done := m.activateLocked(parent)
	return ctx, done, true
}

// endSeen records that a call told the agent the monitor ended.
func (m *monitor) endSeen() {
	m.mu.Lock()
	m.endUnseen = false
	m.mu.Unlock()
}

// activateLocked makes a new call the one driving the monitor; callMu is held and is released.
// The returned func ends the call.
func (m *monitor) activateLocked(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	c := &call{cancel: cancel, done: make(chan struct{})}
	m.active = c
	m.callMu.Unlock()
	return ctx, func() {
		cancel()
		m.callMu.Lock()
		if m.active == c {
			m.active = nil
		}
		m.callMu.Unlock()
		close(c.done)
	}
}
