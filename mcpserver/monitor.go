package mcpserver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

// monitor is one watched pull request: its machine, what the last poll saw, and the tool call
// currently driving it. Its fields and its mutex are touched in this file only: the rest of the
// server uses the methods below, and reads id and ref, which never change.
type monitor struct {
	id      string
	ref     prstatus.PRRef
	created time.Time
	state   Persister
	logger  *slog.Logger
	// calls holds the tool call driving the monitor.
	calls callSlot

	mu      sync.Mutex // guards everything below and serialises machine steps
	m       *statemachine.Machine
	facts   *prstatus.Facts
	factsAt time.Time
	// fresh is the snapshot pr_monitor_start fetched, used once by the first poll so starting a
	// monitor costs one GraphQL request, not two; only while nothing but ready happened since.
	fresh      *prstatus.Facts
	lastAction *contract.ActionOutput
	// handed identifies the last task this process handed to the agent (taskID) since the last
	// pr_monitor_start; a task saved by an earlier process was never handed out by this one.
	handed string
	// release gives up the monitor's claim in the state directory; nil once given up (or for a
	// stopped monitor kept only to be read): then nothing is saved any more.
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
	// relays are the questions of this run handed to the agent because the host could not show
	// them to the user: the agent's answer to one is the user's, relayed (consent.go).
	relays *contract.Relays
	// pushed is what the agent was last told of the open action (push.go), saved with the record.
	pushed store.Pushed
}

// newMonitor is a new monitor of ref, holding release (its claim in the state directory).
func newMonitor(id string, ref prstatus.PRRef, now time.Time, machine *statemachine.Machine, state Persister, logger *slog.Logger, release func()) *monitor {
	return &monitor{id: id, ref: ref, created: now, state: state, logger: logger, release: release, m: machine, relays: contract.NewRelays(stdioConsent())}
}

// resumedMonitor is the monitor saved in rec, at machine's position, holding release.
func resumedMonitor(id string, rec store.Record, machine *statemachine.Machine, state Persister, logger *slog.Logger, release func()) *monitor {
	m := &monitor{id: id, ref: rec.Ref, created: rec.CreatedAt, state: state, logger: logger, release: release,
		m: machine, ended: rec.Stopped, savedAt: rec.UpdatedAt, relays: contract.NewRelays(stdioConsent())}
	if rec.Pushed != nil {
		m.pushed = *rec.Pushed
	}
	return m
}

// The calls driving the monitor.

// begin makes the calling tool call the one driving the monitor, superseding the call that did.
func (m *monitor) begin(parent context.Context) (context.Context, func()) {
	ctx, done, late := m.calls.supersede(parent)
	if late {
		m.logger.Warn("superseded call did not finish in time", "monitor", m.id)
	}
	return ctx, done
}

// claim makes the calling tool call the one driving the monitor, unless another call drives it:
// monitor_id=all never supersedes a call waiting on one pull request.
func (m *monitor) claim(parent context.Context) (context.Context, func(), bool) {
	return m.calls.claim(parent)
}

// stopCall cancels the call driving the monitor, if any (pr_monitor_stop, shutdown).
func (m *monitor) stopCall() { m.calls.cancel() }

// isDriven reports whether a call drives the monitor now.
func (m *monitor) isDriven() bool { return m.calls.busy() }

// The machine and its record.

// step feeds one input to the machine and persists the result. A machine error leaves the
// monitor exactly as it was.
func (m *monitor) step(now time.Time, in statemachine.Input) (statemachine.Action, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	open := m.openQuestion(in)
	act, err := m.m.Step(now, in)
	if err != nil {
		m.log(refusedEvent(open, in, err))
		return act, err
	}
	if in.Kind == statemachine.InputPoll {
		f := *in.Facts
		m.facts, m.factsAt = &f, now
	}
	ready := in.Kind == statemachine.InputEvent && in.Event == statemachine.EventReady
	if in.Kind != statemachine.InputPoll && !ready {
		m.dirtyAt = now
	}
	if !ready {
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
	m.saveLocked()
	m.log(StepEvent(open, in, act, m.m.Fired()))
	return contract.Bound(act, contract.ActionBudget), nil
}

// save writes the monitor's record, while it holds its claim.
func (m *monitor) save() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saveLocked()
}

func (m *monitor) saveLocked() {
	if m.release == nil { // no longer claimed: the record was finalised when the monitor ended
		return
	}
	rec := store.Record{Ref: m.ref, Position: m.m.Position(), Stopped: m.ended, CreatedAt: m.created}
	if m.pushed.Key != "" {
		pushed := m.pushed
		rec.Pushed = &pushed
	}
	err := m.state.Save(m.id, rec)
	if err != nil {
		m.logger.Error("could not save the monitor; a restart would lose its place", "monitor", m.id, "err", err)
	}
}

// letGo gives up the monitor's claim in the state directory: its record stays as last saved.
func (m *monitor) letGo() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.release != nil {
		m.release()
		m.release = nil
	}
}

// openQuestion is the question open when in came, when in answers one (for the event log).
// m.mu is held.
func (m *monitor) openQuestion(in statemachine.Input) *elicitation.Question {
	if !isAnswer(in) {
		return nil
	}
	return m.m.Position().Question
}

// note appends a sentence, and data for debugging, to the monitor's event log.
func (m *monitor) note(kind store.EventKind, summary string, data any) {
	m.log(store.Event{Kind: kind, Summary: summary, Data: data})
}

// log appends an event to the monitor's event log.
func (m *monitor) log(e store.Event) { m.state.Log(m.id, e) }

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
	return contract.Bound(m.m.Pending(), contract.ActionBudget)
}

func (m *monitor) isEnded() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ended
}

// lastFacts is what the last poll saw.
func (m *monitor) lastFacts() (*prstatus.Facts, time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.facts, m.factsAt
}

// monitorView is a monitor as pr_monitor_status shows it: copies, read at once.
type monitorView struct {
	pos        statemachine.Position
	pending    statemachine.Action // unbounded
	facts      *prstatus.Facts
	factsAt    time.Time
	lastAction *contract.ActionOutput
}

func (m *monitor) view() monitorView {
	m.mu.Lock()
	defer m.mu.Unlock()
	return monitorView{pos: m.m.Position(), pending: m.m.Pending(), facts: m.facts, factsAt: m.factsAt, lastAction: m.lastAction}
}

// The agent.

// attached records that an agent (re)attached with pr_monitor_start or pr_monitor_start_all: it
// may not have the task in progress, which its ready gets back. f, read at now, is the snapshot
// pr_monitor_start took (nil for start_all), which the watcher published as update seq.
func (m *monitor) attached(f *prstatus.Facts, now time.Time, seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handed = ""
	if f != nil {
		m.facts, m.factsAt, m.fresh, m.freshSeq = f, now, f, seq
	}
}

// handedOut records what reached the agent: the last action (status shows it) and, for a task,
// that this process handed it out.
func (m *monitor) handedOut(out contract.ActionOutput) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastAction = &out
	if out.Action == string(statemachine.ActionExecute) {
		m.handed = taskID(m.m.Position())
	}
}

// taskHandedOut reports whether this process handed the task in progress (if any) to the agent.
func (m *monitor) taskHandedOut() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := taskID(m.m.Position())
	return id == "" || id == m.handed
}

// question names question seq of this monitor's run for its relays: a monitor is one run (a
// monitor started again after it ended is a new one, with relays of its own).
func (m *monitor) question(seq int) contract.QuestionKey {
	return contract.QuestionKey{Monitor: m.id, Seq: seq}
}

// handedToAgent records that question seq went to the agent because of why; it reports whether
// the agent's answer to it will be the user's, relayed (consent.go).
func (m *monitor) handedToAgent(seq int, why contract.NotShown) bool {
	return m.relays.Handed(m.question(seq), why)
}

// shownToHost records that a form of question seq reached the host: an earlier relay of it no
// longer stands.
func (m *monitor) shownToHost(seq int) { m.relays.Shown(m.question(seq)) }

// agentAnswer marks the agent's user_chose to question seq as a relay or its own (consent.go).
func (m *monitor) agentAnswer(in statemachine.Input, seq int, hostShowsNoForms bool) statemachine.Input {
	return m.relays.AgentAnswer(in, m.question(seq), hostShowsNoForms)
}

// endSeen records that a call told the agent the monitor ended.
func (m *monitor) endSeen() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endUnseen = false
}

// The watcher.

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

// watcherView is what hasNews reads of the watcher.
type watcherView interface {
	Latest(ref prstatus.PRRef) (watch.Update, bool)
}

// hasNews says whether a monitor_id=all scan should drive the monitor: it starts, has GitHub
// work, was asked to poll now, or the watcher has a snapshot it has not seen.
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

// monitor_id=all.

// turn is what the monitor_id=all scheduler reads of a monitor to order the actions waiting on
// the agent (all_order.go).
type turn struct {
	m     *monitor
	ended bool
	// waiting: an action waits on the agent or the user (an ended monitor's, until a call said
	// so), since then; asks: that action is a question.
	waiting bool
	asks    bool
	since   time.Time
	// servedAt is when monitor_id=all last handed the monitor's action out; handed: that action is
	// still the one waiting.
	servedAt time.Time
	handed   bool
	// depth is how far up a stack the pull request is (stack_order.go): lower ones go first.
	depth int
}

func (m *monitor) turn() turn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return turn{m: m, ended: m.ended, waiting: !m.waitingSince.IsZero() && (!m.ended || m.endUnseen), asks: m.m.Pending().Kind == statemachine.ActionAskUser,
		since: m.waitingSince, servedAt: m.servedAt, handed: !m.servedAt.IsZero() && m.servedStep == m.steps}
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

// served records that monitor_id=all handed out the monitor's action at now.
func (m *monitor) served(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.servedAt, m.servedStep = now, m.steps
}

// servedByAll reports whether monitor_id=all handed out an action of this monitor.
func (m *monitor) servedByAll() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.servedAt.IsZero()
}

// Pushes (push.go).

// toldKey is the key of the open action the agent was last told of, by a call or a push.
func (m *monitor) toldKey() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pushed.Key
}

// pushCount is how many pushes the monitor has sent.
func (m *monitor) pushCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pushed.Seq
}

// told records that the agent was told of the action key, and saves it; a push (not a call's
// answer) counts one more push and returns their number, the push's seq.
func (m *monitor) told(key string, push bool, now time.Time) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.pushed.Key == key && !push {
		return m.pushed.Seq
	}
	m.pushed.Key = key
	if push {
		m.pushed.Seq++
		m.pushed.At = now
	}
	m.saveLocked()
	return m.pushed.Seq
}
