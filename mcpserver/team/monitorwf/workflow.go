package monitorwf

import (
	"fmt"
	"hash/fnv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Result is what a monitor's workflow returns when it ends (stopped or merged).
type Result struct {
	Position statemachine.Position `json:"position"`
	Final    statemachine.Action   `json:"final"`
	// StoppedBy is the owner when the owner stopped the monitor (a stop lasts: a webhook delivery
	// starts no new run over it, only the owner's own start does); empty when it ended otherwise.
	StoppedBy string `json:"stopped_by,omitempty"`
	// StoppedByLogin is that owner's login (Params.OwnerLogin) when the owner is keyed by an id: a
	// delivery that names its author by login alone is matched by it.
	StoppedByLogin string `json:"stopped_by_login,omitempty"`
	// Deliveries are the webhook deliveries the last run took within its window: a replay of one
	// starts nothing either.
	Deliveries []Delivery `json:"deliveries,omitempty"`
}

// Monitor is the workflow: one per pull request, id WorkflowID(ref). It runs until the machine
// stops (the Stop signal, or a stop the user chose) or sees the merge, and continues as new
// before its history grows large.
func Monitor(ctx workflow.Context, p Params) (Result, error) {
	p = p.withDefaults()
	w, err := newMonitor(ctx, p)
	if err != nil {
		return Result{}, temporal.NewNonRetryableApplicationError(err.Error(), "BadParams", err)
	}
	if err := w.register(ctx); err != nil {
		return Result{}, err
	}
	for {
		w.drive(ctx)
		if w.ended() || (w.tooLong(ctx) && workflow.AllHandlersFinished(ctx)) {
			// An Update still waiting gets its answer first (it sees the end, or times out).
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return Result{}, err
			}
			w.woken = false
			w.drainSignals(ctx)
			if w.ended() {
				return w.result(), nil
			}
			if w.woken { // a signal came while the handlers finished: serve it in this run
				continue
			}
			return Result{}, workflow.NewContinueAsNewError(ctx, Monitor, w.continued())
		}
		w.sleep(ctx)
	}
}

// monitor is one run's state. Workflow code runs one coroutine at a time, so no lock is needed;
// busy keeps the agent's Updates from stepping the machine while the loop awaits GitHub.
type monitor struct {
	p  Params
	id string
	// firstRun is the first run id of the chain of runs this one continues: it names the run of
	// the monitor's questions (Reply.Run).
	firstRun string
	m        *statemachine.Machine
	act      statemachine.Action // what the machine asked for last
	runs     int

	steps    int  // machine steps in this run
	busy     bool // the loop is waiting on an activity whose result it will feed to the machine
	woken    bool // something happened that the sleeping loop must look at
	stopping bool
	// stopSignalled: the Stop signal came (from the owner, through a front end).
	stopSignalled bool
	// stoppedBy is the owner once the owner stopped the machine.
	stoppedBy string
	// deliveries are the webhook deliveries taken within the window (deliveries.go).
	deliveries []Delivery

	// owed is when the first change no read has seen arrived; lastChange the latest one.
	owed, lastChange time.Time
	// sinceChange is when the first change the agent has not yet had an action for arrived
	// (latency.go).
	sinceChange  time.Time
	changes      int
	reconcileAt  time.Time
	hotAt        time.Time
	lastRead     time.Time
	readFailures int
	retryAt      time.Time // after a failed read, none before this
	lastError    string
	lastEvent    Event
	facts        *prstatus.Facts
	handed       string // the task last handed to the agent by an Update in this run
	callsWaiting int    // the agent's NextStep Updates waiting now for something for the agent
	// published is the PrmonitorWaitingOn value the workflow last set (publish.go).
	published WaitingOn
	// authorSeen: a read found the pull request's author to be the id-keyed owner (foreign).
	authorSeen bool
}

// Event is the last thing that happened to a monitor, for status and the board.
type Event struct {
	At   time.Time `json:"at,omitzero"`
	What string    `json:"what,omitempty"`
}

// Change is the payload of SignalChanged: what GitHub reported, for the record (the workflow
// reads the pull request itself; nothing in a delivery is trusted or needed).
type Change struct {
	// Kind is the webhook event and action ("pull_request_review.submitted"), or "start".
	Kind string `json:"kind"`
	// Delivery is GitHub's X-GitHub-Delivery id, when it came from a webhook.
	Delivery string `json:"delivery,omitempty"`
	// Digest names the delivery's signed body (hex of its SHA-256's first half): a change whose
	// digest the monitor took within its delivery window is a replay, and is dropped.
	Digest string `json:"digest,omitempty"`
	// Owner is whom a monitor this change starts belongs to (Params.Owner, an owner key: Owner.Key):
	// the user who asked, or the pull request's author for a delivery. A running monitor keeps its
	// owner. OwnerLogin is that user's login (Params.OwnerLogin).
	Owner      string `json:"owner,omitempty"`
	OwnerLogin string `json:"owner_login,omitempty"`
}

func newMonitor(ctx workflow.Context, p Params) (*monitor, error) {
	w := &monitor{p: p, id: WorkflowID(p.Ref), firstRun: workflow.GetInfo(ctx).FirstRunID, published: publishedBefore(ctx)}
	now := workflow.Now(ctx)
	if c := p.Carry; c != nil {
		m, err := statemachine.Restore(p.Machine, c.Position)
		if err != nil {
			return nil, fmt.Errorf("restore the carried position: %w", err)
		}
		w.m, w.act, w.runs, w.deliveries, w.authorSeen = m, m.Pending(), c.Runs, c.Deliveries, c.AuthorSeen
		w.owed, w.lastChange, w.reconcileAt, w.hotAt = c.Owed, c.Owed, c.ReconcileAt, c.HotAt
		if w.reconcileAt.IsZero() {
			w.reconcileAt = now.Add(w.reconcilePeriod())
		}
		return w, nil
	}
	w.m = statemachine.New(p.Machine, statemachine.Monitor{ID: w.id, Ref: p.Ref})
	w.reconcileAt = now.Add(w.reconcilePeriod())
	// A new monitor starts watching at once (the embedded server's first ready does the same).
	if err := w.step(ctx, statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}), "started"); err != nil {
		return nil, err
	}
	return w, nil
}

func (w *monitor) register(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, QueryStatus, func() (Status, error) { return w.status(), nil }); err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryPending, func() (statemachine.Action, error) { return w.m.Pending(), nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateNextStep, w.nextStep,
		workflow.UpdateHandlerOptions{Validator: w.validateNextStep}); err != nil {
		return err
	}
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, SignalChanged)
		for {
			var c Change
			ch.Receive(ctx, &c)
			w.onChange(ctx, c)
		}
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		workflow.GetSignalChannel(ctx, SignalStop).Receive(ctx, nil)
		w.onStop(ctx)
	})
	workflow.Go(ctx, func(ctx workflow.Context) {
		ch := workflow.GetSignalChannel(ctx, SignalAdopt)
		for {
			var o Owner
			ch.Receive(ctx, &o)
			w.onAdopt(ctx, o)
		}
	})
	return nil
}

func (w *monitor) onChange(ctx workflow.Context, c Change) {
	now := workflow.Now(ctx)
	if c.Digest != "" {
		var fresh bool
		if w.deliveries, fresh = took(w.deliveries, c.Digest, now, w.p.DeliveryWindow); !fresh {
			return // a replay of a delivery this monitor took: nothing new
		}
	}
	if w.owed.IsZero() {
		w.owed = now
	}
	w.lastChange = now
	w.changeSeen(now)
	w.changes++
	w.lastEvent = Event{At: now, What: "GitHub: " + kindWord(c.Kind)}
	w.woken = true
}

func (w *monitor) onStop(ctx workflow.Context) {
	w.stopping, w.woken, w.stopSignalled = true, true, true
	w.lastEvent = Event{At: workflow.Now(ctx), What: "stop requested"}
}

// drainSignals takes the signals delivered but not yet received, before the run ends or
// continues as new: a signal left in a channel would be lost with the run.
func (w *monitor) drainSignals(ctx workflow.Context) {
	ch := workflow.GetSignalChannel(ctx, SignalChanged)
	for {
		var c Change
		if !ch.ReceiveAsync(&c) {
			break
		}
		w.onChange(ctx, c)
	}
	for adopt := workflow.GetSignalChannel(ctx, SignalAdopt); ; {
		var o Owner
		if !adopt.ReceiveAsync(&o) {
			break
		}
		w.onAdopt(ctx, o)
	}
	if workflow.GetSignalChannel(ctx, SignalStop).ReceiveAsync(nil) {
		w.onStop(ctx)
		w.drive(ctx)
	}
}

// result is what the workflow returns when the machine ended.
func (w *monitor) result() Result {
	r := Result{Position: w.m.Position(), Final: w.act, StoppedBy: w.stoppedBy, Deliveries: w.deliveries}
	if w.stoppedBy != "" && IsIDKey(w.stoppedBy) {
		r.StoppedByLogin = w.p.OwnerLogin
	}
	return r
}

// ended: the machine stopped or saw the merge.
func (w *monitor) ended() bool {
	return w.act.Kind == statemachine.ActionStop || w.act.Kind == statemachine.ActionMerged
}

// tooLong: the history should be cut (Temporal suggests it, or it passed the configured length).
func (w *monitor) tooLong(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= w.p.MaxHistoryEvents
}

// continued is the next run's parameters: the position and the timers, nothing else.
func (w *monitor) continued() Params {
	p := w.p
	owed := w.owed
	if owed.IsZero() && w.lastChange.After(w.lastRead) {
		owed = w.lastChange
	}
	p.Carry = &Carry{Position: w.m.Position(), Owed: owed, ReconcileAt: w.reconcileAt, HotAt: w.hotAt, Runs: w.runs + 1,
		Deliveries: w.deliveries, AuthorSeen: w.authorSeen}
	return p
}

// step feeds the machine one input on the workflow's clock.
func (w *monitor) step(ctx workflow.Context, in statemachine.Input, what string) error {
	now := workflow.Now(ctx)
	act, err := w.m.Step(now, in)
	if err != nil {
		w.lastError = err.Error()
		workflow.GetLogger(ctx).Error("the machine refused an input", "monitor", w.id, "input", string(in.Kind), "err", err)
		return err
	}
	w.act = act
	if stoppedByOwner(in, act, w.stopSignalled) {
		w.stoppedBy = w.p.Owner
	}
	w.steps++
	w.lastEvent = Event{At: now, What: what + " → " + string(act.Kind)}
	w.publish(ctx)
	return nil
}

// drive does what the machine asked for that needs no one else: server actions, and reads when
// one is due. It returns when the machine waits on the agent, the user, a change or a timer.
func (w *monitor) drive(ctx workflow.Context) {
	for {
		switch {
		case w.stopping && !w.ended():
			if err := w.step(ctx, statemachine.StopInput(), "stopped"); err != nil {
				w.stopping = false // cannot happen: stop is valid in every state; do not spin
			}
		case w.act.Kind == statemachine.ActionServer && !w.stopping:
			w.perform(ctx)
		case w.readDue(ctx):
			w.read(ctx)
		default:
			return
		}
	}
}

// sleep waits until a read falls due or something happens (a signal, an Update that moved the
// machine). The timer is durable: a worker that restarts meanwhile resumes the wait.
func (w *monitor) sleep(ctx workflow.Context) {
	w.woken = false
	woken := func() bool { return w.woken }
	due, ok := w.nextRead(ctx)
	if !ok {
		_ = workflow.Await(ctx, woken)
		return
	}
	if d := due.Sub(workflow.Now(ctx)); d > 0 {
		_, _ = workflow.AwaitWithTimeout(ctx, d, woken)
	}
}

// reconcilePeriod is Params.Reconcile plus up to a tenth of it, fixed per pull request: monitors
// started together do not read GitHub together. It is a hash, not a random draw: replays agree.
func (w *monitor) reconcilePeriod() time.Duration {
	h := fnv.New32a()
	_, _ = h.Write([]byte(w.id))
	tenth := int64(w.p.Reconcile / 10)
	if tenth <= 0 {
		return w.p.Reconcile
	}
	return w.p.Reconcile + time.Duration(int64(h.Sum32())%tenth)
}
