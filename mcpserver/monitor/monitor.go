package monitor

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

// Monitor is one watched pull request: its machine, what the last poll saw, and the tool call
// currently driving it. Its fields and its mutex are touched in this file only: the rest of the
// server uses the methods below, and reads ID and Ref, which never change.
type Monitor struct {
	ID      string
	Ref     prstatus.PRRef
	created time.Time
	state   Persister
	logger  *slog.Logger
	// calls holds the tool call driving the monitor.
	calls CallSlot

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
	// them to the user: the agent's answer to one is the user's, relayed
	// (docs/security.md#consent).
	relays *contract.Relays
	// pushed is what the agent was last told of the open action (by a call or a push), saved with
	// the record.
	pushed store.Pushed
}

// New is a new monitor of ref, holding release (its claim in the state directory).
func New(id string, ref prstatus.PRRef, now time.Time, machine *statemachine.Machine, state Persister, logger *slog.Logger, release func(), consent contract.Policy) *Monitor {
	return &Monitor{ID: id, Ref: ref, created: now, state: state, logger: logger, release: release, m: machine, relays: contract.NewRelays(consent)}
}

// Resumed is the monitor saved in rec, at machine's position, holding release.
func Resumed(id string, rec store.Record, machine *statemachine.Machine, state Persister, logger *slog.Logger, release func(), consent contract.Policy) *Monitor {
	m := &Monitor{ID: id, Ref: rec.Ref, created: rec.CreatedAt, state: state, logger: logger, release: release,
		m: machine, ended: rec.Stopped, savedAt: rec.UpdatedAt, relays: contract.NewRelays(consent)}
	if rec.Pushed != nil {
		m.pushed = *rec.Pushed
	}
	return m
}

// The calls driving the monitor.

// Begin makes the calling tool call the one driving the monitor, superseding the call that did.
func (m *Monitor) Begin(parent context.Context) (context.Context, func()) {
	ctx, done, late := m.calls.Supersede(parent)
	if late {
		m.logger.Warn("superseded call did not finish in time", "monitor", m.ID)
	}
	return ctx, done
}

// Claim makes the calling tool call the one driving the monitor, unless another call drives it:
// monitor_id=all never supersedes a call waiting on one pull request.
func (m *Monitor) Claim(parent context.Context) (context.Context, func(), bool) {
	return m.calls.claim(parent)
}

// StopCall cancels the call driving the monitor, if any (pr_monitor_stop, shutdown).
func (m *Monitor) StopCall() { m.calls.cancel() }

// IsDriven reports whether a call drives the monitor now.
func (m *Monitor) IsDriven() bool { return m.calls.Busy() }

// The machine and its record.

// Step feeds one input to the machine and persists the result. A machine error leaves the
// monitor exactly as it was.
func (m *Monitor) Step(now time.Time, in statemachine.Input) (statemachine.Action, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	open := m.openQuestion(in)
	act, err := m.m.Step(now, in)
	if err != nil {
		m.Log(refusedEvent(open, in, err))
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
	m.Log(StepEvent(open, in, act, m.m.Fired()))
	return contract.Bound(act, contract.ActionBudget), nil
}

// save writes the monitor's record, while it holds its claim.
func (m *Monitor) save() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saveLocked()
}

func (m *Monitor) saveLocked() {
	if m.release == nil { // no longer claimed: the record was finalised when the monitor ended
		return
	}
	rec := store.Record{Ref: m.Ref, Position: m.m.Position(), Stopped: m.ended, CreatedAt: m.created}
	if m.pushed.Key != "" {
		pushed := m.pushed
		rec.Pushed = &pushed
	}
	err := m.state.Save(m.ID, rec)
	if err != nil {
		m.logger.Error("could not save the monitor; a restart would lose its place", "monitor", m.ID, "err", err)
	}
}

// LetGo gives up the monitor's claim in the state directory: its record stays as last saved.
func (m *Monitor) LetGo() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.release != nil {
		m.release()
		m.release = nil
	}
}

// openQuestion is the question open when in came, when in answers one (for the event log).
// m.mu is held.
func (m *Monitor) openQuestion(in statemachine.Input) *elicitation.Question {
	if !isAnswer(in) {
		return nil
	}
	return m.m.Position().Question
}

// Note appends a sentence, and data for debugging, to the monitor's event log.
func (m *Monitor) Note(kind store.EventKind, summary string, data any) {
	m.Log(store.Event{Kind: kind, Summary: summary, Data: data})
}

// Log appends an event to the monitor's event log.
func (m *Monitor) Log(e store.Event) { m.state.Log(m.ID, e) }

// Position is a copy of the machine's position.
func (m *Monitor) Position() statemachine.Position {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m.Position()
}

// Pending is the action the monitor waits on, changing nothing.
func (m *Monitor) Pending() statemachine.Action {
	m.mu.Lock()
	defer m.mu.Unlock()
	return contract.Bound(m.m.Pending(), contract.ActionBudget)
}

func (m *Monitor) IsEnded() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ended
}

// LastFacts is what the last poll saw.
func (m *Monitor) LastFacts() (*prstatus.Facts, time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.facts, m.factsAt
}

// View is a monitor as pr_monitor_status shows it: copies, read at once.
type View struct {
	Pos        statemachine.Position
	Pending    statemachine.Action // unbounded
	Facts      *prstatus.Facts
	FactsAt    time.Time
	LastAction *contract.ActionOutput
}

// View reads the monitor at once, for pr_monitor_status.
func (m *Monitor) View() View {
	m.mu.Lock()
	defer m.mu.Unlock()
	return View{Pos: m.m.Position(), Pending: m.m.Pending(), Facts: m.facts, FactsAt: m.factsAt, LastAction: m.lastAction}
}

// The agent.

// Attached records that an agent (re)attached with pr_monitor_start or pr_monitor_start_all: it
// may not have the task in progress, which its ready gets back. f, read at now, is the snapshot
// pr_monitor_start took (nil for start_all), which the watcher published as update seq.
func (m *Monitor) Attached(f *prstatus.Facts, now time.Time, seq uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handed = ""
	if f != nil {
		m.facts, m.factsAt, m.fresh, m.freshSeq = f, now, f, seq
	}
}

// HandedOut records what reached the agent: the last action (status shows it) and, for a task,
// that this process handed it out.
func (m *Monitor) HandedOut(out contract.ActionOutput) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lastAction = &out
	if out.Action == string(statemachine.ActionExecute) {
		m.handed = TaskID(m.m.Position())
	}
}

// TaskHandedOut reports whether this process handed the task in progress (if any) to the agent.
func (m *Monitor) TaskHandedOut() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	id := TaskID(m.m.Position())
	return id == "" || id == m.handed
}

// question names question seq of this monitor's run for its relays: a monitor is one run (a
// monitor started again after it ended is a new one, with relays of its own).
func (m *Monitor) question(seq int) contract.QuestionKey {
	return contract.QuestionKey{Monitor: m.ID, Seq: seq}
}

// HandedToAgent records that question seq went to the agent because of why; it reports whether
// the agent's answer to it will be the user's, relayed (docs/security.md#consent).
func (m *Monitor) HandedToAgent(seq int, why contract.NotShown) bool {
	return m.relays.Handed(m.question(seq), why)
}

// ShownToHost records that a form of question seq reached the host: an earlier relay of it no
// longer stands.
func (m *Monitor) ShownToHost(seq int) { m.relays.Shown(m.question(seq)) }

// AgentAnswer marks the agent's user_chose to question seq as a relay or its own
// (docs/security.md#consent).
func (m *Monitor) AgentAnswer(in statemachine.Input, seq int, hostShowsNoForms bool) statemachine.Input {
	return m.relays.AgentAnswer(in, m.question(seq), hostShowsNoForms)
}

// EndSeen records that a call told the agent the monitor ended.
func (m *Monitor) EndSeen() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.endUnseen = false
}

// The watcher.

// TakeFresh returns the start snapshot once, if it is still recent.
func (m *Monitor) TakeFresh(now time.Time, maxAge time.Duration) *prstatus.Facts {
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

// SeenSeq is the last watcher update the monitor took.
func (m *Monitor) SeenSeq() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seen
}

// See takes update u: false when it is not newer than the last one taken, or was read before the
// monitor's last poke (older than the monitor's own work on GitHub).
func (m *Monitor) See(u watch.Update) bool {
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

// CatchUp pokes the watcher on a resumed monitor's first poll when the watcher read the pull
// request (before the restart too: Watcher.LastRead) after the monitor's record was saved: that
// read's update was published while no call took it, and a restarted watcher, whose saved
// fingerprint is that read's, sees nothing move until a safety refresh.
func (m *Monitor) CatchUp(w *watch.Watcher, now time.Time) {
	m.mu.Lock()
	saved := m.savedAt
	m.savedAt = time.Time{}
	m.mu.Unlock()
	if saved.IsZero() {
		return
	}
	if read, ok := w.LastRead(m.Ref); !ok || !read.After(saved) {
		return
	}
	m.mu.Lock()
	m.pokedStep, m.pokedAt = m.steps, now
	m.mu.Unlock()
	w.Poke(m.Ref)
}

// Poke asks the watcher for a fresh snapshot, once per machine step that asked to poll now, unless
// the watcher has one the monitor has not seen, taken since the monitor's last news.
func (m *Monitor) Poke(w *watch.Watcher, now time.Time) {
	m.mu.Lock()
	if m.pokedStep == m.steps && !m.pokedAt.IsZero() {
		m.mu.Unlock()
		return
	}
	if u, ok := w.Latest(m.Ref); ok && u.Seq > m.seen && !u.At.Before(m.dirtyAt) && !u.At.Before(m.pokedAt) {
		m.mu.Unlock()
		return
	}
	m.pokedStep, m.pokedAt = m.steps, now
	m.mu.Unlock()
	w.Poke(m.Ref)
}

// watcherView is what hasNews reads of the watcher.
type watcherView interface {
	Latest(ref prstatus.PRRef) (watch.Update, bool)
}

// HasNews says whether a monitor_id=all scan should drive the monitor: it starts, has GitHub
// work, was asked to poll now, or the watcher has a snapshot it has not seen.
func (m *Monitor) HasNews(w watcherView) bool {
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
	u, ok := w.Latest(m.Ref)
	return ok && u.Seq > seen
}

// PendingPoll is the pending action, with PollNow kept while a start snapshot is unused.
func (m *Monitor) PendingPoll() statemachine.Action {
	act := m.Pending()
	m.mu.Lock()
	defer m.mu.Unlock()
	if act.Kind == statemachine.ActionPolling && m.fresh != nil {
		act.PollNow = true
	}
	return act
}

// monitor_id=all.

// Turn is what the monitor_id=all scheduler reads of a monitor to order the actions waiting on
// the agent.
type Turn struct {
	Monitor *Monitor
	Ended   bool
	// Waiting: an action waits on the agent or the user (an ended monitor's, until a call said
	// so), Since then; Asks: that action is a question.
	Waiting bool
	Asks    bool
	Since   time.Time
	// ServedAt is when monitor_id=all last handed the monitor's action out; Handed: that action is
	// still the one waiting.
	ServedAt time.Time
	Handed   bool
	// Depth is how far up a stack the pull request is: lower ones go first.
	Depth int
}

// Turn reads what the scheduler orders the monitor by, at once.
func (m *Monitor) Turn() Turn {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Turn{Monitor: m, Ended: m.ended, Waiting: !m.waitingSince.IsZero() && (!m.ended || m.endUnseen), Asks: m.m.Pending().Kind == statemachine.ActionAskUser,
		Since: m.waitingSince, ServedAt: m.servedAt, Handed: !m.servedAt.IsZero() && m.servedStep == m.steps}
}

// NoteWaiting starts the wait of a monitor that waits on the agent or the user without a start
// time: one resumed from the state directory (a restarted server hands its action out again).
func (m *Monitor) NoteWaiting(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.waitingSince.IsZero() || m.ended {
		return
	}
	if k := m.m.Pending().Kind; k != statemachine.ActionPolling && k != statemachine.ActionServer {
		m.waitingSince = now
	}
}

// Served records that monitor_id=all handed out the monitor's action at now.
func (m *Monitor) Served(now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.servedAt, m.servedStep = now, m.steps
}

// ServedByAll reports whether monitor_id=all handed out an action of this monitor.
func (m *Monitor) ServedByAll() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return !m.servedAt.IsZero()
}

// Pushes: channel events to a client no call waits on (docs/architecture.md#the-protocol).

// ToldKey is the key of the open action the agent was last told of, by a call or a push.
func (m *Monitor) ToldKey() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pushed.Key
}

// PushCount is how many pushes the monitor has sent.
func (m *Monitor) PushCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pushed.Seq
}

// Told records that the agent was told of the action key, and saves it; a push (not a call's
// answer) counts one more push and returns their number, the push's seq.
func (m *Monitor) Told(key string, push bool, now time.Time) int {
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
