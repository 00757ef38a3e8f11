package statemachine

import (
	"fmt"
	"slices"
	"time"

	"github.com/looplab/fsm"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// Config tunes the machine. The zero value is not useful; start from DefaultConfig.
type Config struct {
	// RefineCooldown is the least time between two automatic dispatches of one review round.
	RefineCooldown time.Duration `json:"refine_cooldown"`
	// MaxAutoRefines is how many times one round may be dispatched without the user's say-so.
	MaxAutoRefines int `json:"max_auto_refines"`
	// MergeMethod is merge, squash or rebase.
	MergeMethod string `json:"merge_method"`
	// AllowAdminMerge offers "merge with administrator bypass" after a policy refusal. Off unless
	// the user configured it.
	AllowAdminMerge bool `json:"allow_admin_merge"`
	// Lookback is how many earlier review rounds the cluster analysis looks at.
	Lookback int `json:"lookback"`
	// RerunShowsWithin is how long polls that still show the failed run a requested re-run
	// replaces are waited out (GitHub lists re-run jobs a moment after the request); past it the
	// failure is raised again.
	RerunShowsWithin time.Duration `json:"rerun_shows_within"`
	// NoAutoRerun turns off the server's one automatic re-run of a failure known to be flaky in a
	// test the pull request does not touch: every failure then goes to the agent.
	NoAutoRerun bool `json:"no_auto_rerun,omitempty"`
}

// DefaultConfig is the configuration users get unless they change it.
func DefaultConfig() Config {
	return Config{RefineCooldown: 7 * time.Minute, MaxAutoRefines: 2, MergeMethod: "squash", Lookback: 3, RerunShowsWithin: 10 * time.Minute}
}

// Machine is one monitor's state machine. It is not safe for concurrent use; the MCP server
// serialises steps per monitor.
type Machine struct {
	cfg Config
	pos Position
	// f is the looplab machine over the table; Step syncs it to the position first.
	f *fsm.FSM
	// moves lists the moves the last successful Step made, in order.
	moves []Move
}

// New starts a machine for a pull request, idle.
func New(cfg Config, mon Monitor) *Machine {
	return &Machine{cfg: cfg, pos: Position{Version: PositionVersion, Monitor: mon, Node: NodeIdle}, f: newFSM(NodeIdle)}
}

// Restore resumes a machine at a saved position, exactly; a position saved by an earlier version
// is migrated first (see migrate.go).
func Restore(cfg Config, pos Position) (*Machine, error) {
	work, err := pos.clone()
	if err != nil {
		return nil, err
	}
	if work, err = migrate(work); err != nil {
		return nil, err
	}
	if err := work.check(); err != nil {
		return nil, err
	}
	return &Machine{cfg: cfg, pos: work, f: newFSM(work.Node)}, nil
}

// Position returns a copy of the machine's full position.
func (m *Machine) Position() Position {
	p, err := m.pos.clone()
	if err != nil { // cannot happen: the position was produced by a clone
		return m.pos
	}
	return p
}

// Pending is the action the monitor currently waits on: the open question, the task in progress,
// the server action to perform, or polling. It changes nothing.
func (m *Machine) Pending() Action {
	s := &step{cfg: m.cfg, pos: m.Position(), m: m}
	return s.pending("")
}

// Step feeds one input to the machine and returns the one action to take next. On error the
// position is unchanged.
func (m *Machine) Step(now time.Time, in Input) (Action, error) {
	if err := in.validate(); err != nil {
		return Action{}, err
	}
	work, err := m.pos.clone()
	if err != nil {
		return Action{}, err
	}
	s := &step{cfg: m.cfg, now: now, in: in, pos: work, m: m}
	m.f.SetState(string(work.Node))
	act, err := s.run()
	if err == nil {
		err = s.pos.check()
		if err != nil {
			err = fmt.Errorf("statemachine: step produced an invalid position (a bug): %w", err)
		}
	}
	if err != nil {
		m.f.SetState(string(m.pos.Node))
		return Action{}, err
	}
	act.State, act.Node, act.Flow = s.pos.Node.State(), s.pos.Node, s.pos.Node.Flow()
	if act.Kind == ActionExecute && len(act.ExpectedEvents) == 0 {
		m.f.SetState(string(m.pos.Node))
		return Action{}, fmt.Errorf("statemachine: execute %s without expected events (a bug)", act.Task)
	}
	m.pos, m.moves = s.pos, s.moves
	return act, nil
}

// Moves returns the moves the last successful Step made, in order (for logs and tests).
func (m *Machine) Moves() []Move { return slices.Clone(m.moves) }

// Fired returns the rows the last successful Step fired, in order.
func (m *Machine) Fired() []Transition {
	out := make([]Transition, len(m.moves))
	for i, mv := range m.moves {
		out[i] = mv.Row
	}
	return out
}

// step is one Step in progress: the working position, the input, the clock reading, and what the
// guards read besides.
type step struct {
	cfg   Config
	now   time.Time
	in    Input
	pos   Position
	m     *Machine
	moves []Move

	facts  *prstatus.Facts     // the poll's facts
	att    *prstatus.Attention // the attention a poll is looking at
	choice elicitation.Value   // the answer being handled (a choice, or what a decline means)
	data   EventData           // the completion's data in play
	req    *ServerRequest      // the server action an outcome answers
	rec    *RecoveryState      // the recovery being settled
	ff     *FreeformState      // the free-text answer being returned from
	retry  *ServerRequest      // the failed server action being retried

	unacked    []ThreadContext // unackedThreads, for the attention unackedFor
	unackedFor *prstatus.Attention
}

// run dispatches the input.
func (s *step) run() (Action, error) {
	s.dropStaleSnooze()
	switch s.in.Kind {
	case InputStop:
		return s.stop("Monitoring stopped.")
	case InputPoll:
		return s.onPoll()
	case InputOutcome:
		return s.onOutcome()
	case InputHead:
		return s.onHead()
	case InputDecline, InputCancel, InputFreeform:
		return s.onAnswerish()
	default:
		return s.onEvent()
	}
}

// onEvent handles an agent event according to the top-level state.
func (s *step) onEvent() (Action, error) {
	ev := s.in.Event
	if act, ok := s.replay(); ok {
		return act, nil
	}
	switch s.pos.Node.State() {
	case StateStopped:
		return s.pending("The monitor is stopped; call pr_monitor_start to watch the PR again."), nil
	case StateIdle:
		if ev == EventUserChose {
			return Action{}, fmt.Errorf("%w: the monitor has not started; send ready", ErrNoQuestion)
		}
		if err := s.fire(TStart); err != nil {
			return Action{}, err
		}
		return s.polling("Watching the pull request.", true), nil
	case StatePolling:
		if ev == EventUserChose {
			return Action{}, fmt.Errorf("%w: the monitor is watching, not asking", ErrNoQuestion)
		}
		msg := ""
		if ev != EventReady {
			msg = fmt.Sprintf("No task is in progress; %s ignored.", ev)
		}
		return s.polling(msg, false), nil
	case StateAwaitingUser:
		if ev == EventUserChose {
			return s.answer(s.in.Choice)
		}
		msg := ""
		if ev != EventReady {
			msg = fmt.Sprintf("A question is open; %s ignored. Answer it with user_chose.", ev)
		}
		return s.pending(msg), nil
	default: // executing a task or a server action
		if s.pos.Server != nil {
			return s.pending(""), nil
		}
		if ev == EventUserChose {
			if s.pos.Task.Name == TaskInterpretFreeform {
				return s.freeformChoice(s.in.Choice)
			}
			return Action{}, fmt.Errorf("%w: task %s expects %v", ErrNoQuestion, s.pos.Task.Name, s.pos.Task.Expected)
		}
		if s.pos.Task.expects(ev) {
			return s.complete(ev, s.in.Data)
		}
		return s.beginRecovery(ev, s.in.Data)
	}
}

// onAnswerish handles a declined or dismissed elicitation and a free-text answer.
func (s *step) onAnswerish() (Action, error) {
	if s.pos.Node.State() != StateAwaitingUser {
		return Action{}, fmt.Errorf("%w: %s arrived while %s", ErrNoQuestion, s.in.Kind, s.pos.Node.State())
	}
	if err := s.checkSeq(); err != nil {
		return Action{}, err
	}
	switch s.in.Kind {
	case InputDecline:
		return s.answer(elicitation.DeclineValue(s.pos.Question.ID))
	case InputCancel:
		return s.pending("The prompt was dismissed; the question stays open."), nil
	default:
		s.pos.Snooze = nil // the user spoke to the question: it is no longer put off
		return s.beginFreeform(*s.in.Freeform)
	}
}

func (s *step) checkSeq() error {
	if s.in.QuestionSeq != 0 && s.pos.Question != nil && s.in.QuestionSeq != s.pos.Question.Seq {
		return fmt.Errorf("%w: answer for question %d, question %d is open", ErrStaleAnswer, s.in.QuestionSeq, s.pos.Question.Seq)
	}
	return nil
}

// answer routes a choice to the open question's handler. stop always wins.
func (s *step) answer(v elicitation.Value) (Action, error) {
	q := s.pos.Question
	if q == nil {
		return Action{}, ErrNoQuestion
	}
	if err := s.checkSeq(); err != nil {
		return Action{}, err
	}
	if !q.Offers(v) && v != elicitation.Snooze { // a question saved before snoozing existed can be put off too
		return Action{}, fmt.Errorf("%w: %q; question %q offers %v", ErrChoiceNotOffered, v, q.ID, q.Values())
	}
	if s.pos.NeedsUser(v) && !s.in.By.consents() {
		return Action{}, fmt.Errorf("%w: %q for question %d", ErrNotTheUsersChoice, v, q.Seq)
	}
	prev := s.pos.Answered
	s.pos.Answered, s.pos.Snooze = &Answered{Seq: q.Seq, Choice: v}, nil
	s.choice = v
	if v == elicitation.Snooze {
		return s.snooze(prev)
	}
	if v == elicitation.Stop {
		return s.stop("Monitoring stopped at your request.")
	}
	switch q.ID {
	case elicitation.QRecovery:
		return s.recoveryAnswer(v)
	case elicitation.QActionFailed:
		return s.failedAnswer(v)
	}
	switch s.pos.Node.Flow() {
	case FlowRefine:
		return s.refineAnswer(v)
	case FlowComments:
		return s.commentsAnswer(v)
	case FlowCI:
		return s.ciAnswer(v)
	case FlowConflict:
		return s.conflictAnswer(v)
	case FlowReady:
		return s.readyAnswer(v)
	case FlowStale:
		return s.staleAnswer(v)
	}
	return Action{}, fmt.Errorf("statemachine: question %s in flow %s has no handler (a bug)", q.ID, s.pos.Node.Flow())
}

// complete handles a task's completion: its expected event, or what a recovery settled it as.
func (s *step) complete(ev Event, data EventData) (Action, error) {
	s.data = data
	if s.pos.Task != nil && s.pos.Task.Name == TaskInterpretFreeform {
		return s.freeformDone(ev, data)
	}
	switch s.pos.Node.Flow() {
	case FlowRefine:
		return s.refineDone()
	case FlowComments:
		return s.commentsComplete(ev, data)
	case FlowCI:
		return s.ciComplete(ev, data)
	case FlowConflict:
		return s.finish("Rebased; watching the new head.", conflictPushed...)
	}
	return Action{}, fmt.Errorf("statemachine: %s completes nothing in flow %s (a bug)", ev, s.pos.Node.Flow())
}

// onOutcome routes a server-side outcome to the flow that asked for it.
func (s *step) onOutcome() (Action, error) {
	o := *s.in.Outcome
	if s.pos.Server == nil || s.pos.Server.Kind != o.Kind {
		want := "none"
		if s.pos.Server != nil {
			want = string(s.pos.Server.Kind)
		}
		return Action{}, fmt.Errorf("%w: got %s, pending %s", ErrUnexpectedOutcome, o.Kind, want)
	}
	if o.Kind == ServerFetchHead {
		return Action{}, fmt.Errorf("%w: fetch_head answers with a head input", ErrUnexpectedOutcome)
	}
	req := *s.pos.Server
	s.pos.Server, s.req = nil, &req
	switch s.pos.Node.Flow() {
	case FlowNone:
		return s.catchUpDone(req, o)
	case FlowComments:
		return s.commentsOutcome(req, o)
	case FlowCI:
		return s.ciOutcome(req, o)
	case FlowReady:
		return s.readyOutcome(req, o)
	case FlowStale:
		return s.staleOutcome(req, o)
	}
	return Action{}, fmt.Errorf("statemachine: outcome %s in flow %s has no handler (a bug)", o.Kind, s.pos.Node.Flow())
}
