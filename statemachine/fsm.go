package statemachine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/looplab/fsm"
)

// Move is one move a step made: the row, and the nodes it left and reached.
type Move struct {
	Row  Transition `json:"row"`
	From Node       `json:"from"`
	To   Node       `json:"to"`
}

// errRefused marks a row that exists from the current node but does not fire now: its trigger
// does not fit the input, or a guard does not hold.
var errRefused = errors.New("refused")

// rowsByName indexes the table.
var rowsByName = sync.OnceValue(func() map[Transition]Row {
	m := make(map[Transition]Row, len(Table()))
	for _, r := range Table() {
		m[r.Name] = r
	}
	return m
})

// fsmEvents is the table as looplab events.
var fsmEvents = sync.OnceValue(func() fsm.Events {
	var events fsm.Events
	for _, r := range Table() {
		src := make([]string, len(r.From))
		for i, n := range r.From {
			src[i] = string(n)
		}
		events = append(events, fsm.EventDesc{Name: string(r.Name), Src: src, Dst: string(r.To)})
	}
	return events
})

// fsmCallbacks wires the steps into looplab: before_event checks the row about to fire,
// enter_state moves the node, after_event records the move.
var fsmCallbacks = fsm.Callbacks{"before_event": checkRow, "enter_state": enterNode, "after_event": recordMove}

// newFSM builds the looplab machine from the table, starting at node.
func newFSM(at Node) *fsm.FSM { return fsm.NewFSM(string(at), fsmEvents(), fsmCallbacks) }

// stepOf is the step a move belongs to: every Event call passes it.
func stepOf(e *fsm.Event) *step { return e.Args[0].(*step) }

// checkRow cancels a move whose trigger does not fit the input or whose guard does not hold.
func checkRow(_ context.Context, e *fsm.Event) {
	if why := refusal(rowsByName()[Transition(e.Event)], stepOf(e), Node(e.Src), Node(e.Dst)); why != "" {
		e.Cancel(errRefused)
	}
}

// refusal says why row r does not fire from one node to another now, or "" when it does.
func refusal(r Row, s *step, from, to Node) string {
	if !slices.ContainsFunc(r.On, func(t Trigger) bool { return t.matches(s, from) }) {
		return "it does not fire on " + s.in.describe()
	}
	for _, g := range r.Guards {
		if !guards[g].holds(s, to) {
			return "guard " + string(g) + " does not hold"
		}
	}
	return ""
}

// enterNode is where a step's node changes: only a move of the table gets here.
func enterNode(_ context.Context, e *fsm.Event) { stepOf(e).pos.Node = Node(e.Dst) }

// recordMove keeps the move for Machine.Moves (self-moves included).
func recordMove(_ context.Context, e *fsm.Event) {
	s := stepOf(e)
	s.moves = append(s.moves, Move{Row: Transition(e.Event), From: Node(e.Src), To: Node(e.Dst)})
}

// attempt tries row t from the current node: nil when it fired, errRefused when the row is not
// from here or does not fire now, any other error for a bug. A row that does not leave the current
// node is refused before looplab is asked (it would scan its whole table to say so).
func (s *step) attempt(t Transition) error {
	if r, ok := rowsByName()[t]; ok && !slices.Contains(r.From, s.pos.Node) {
		return errRefused
	}
	err := s.m.f.Event(context.Background(), string(t), s)
	var (
		noTransition fsm.NoTransitionError
		canceled     fsm.CanceledError
	)
	switch {
	case err == nil, errors.As(err, &noTransition) && noTransition.Err == nil:
		return nil
	case errors.As(err, &canceled):
		return errRefused
	}
	return fmt.Errorf("statemachine: row %s from %s: %w", t, s.pos.Node, err)
}

// fire makes the move named t. The table decides whether it may: a row that is not here, does
// not fire on this input or whose guard does not hold is a bug in the flow code, reported as an
// error (the position stays untouched).
func (s *step) fire(t Transition) error {
	err := s.attempt(t)
	if errors.Is(err, errRefused) {
		why := "it does not leave " + string(s.pos.Node)
		if r, ok := rowsByName()[t]; ok && slices.Contains(r.From, s.pos.Node) {
			why = refusal(r, s, s.pos.Node, r.To)
		}
		return fmt.Errorf("statemachine: row %s refused: %s (a bug)", t, why)
	}
	return err
}

// fireFirst makes the first of ts that fires from here, in order, and says which; "" when none
// does (none of the rows is from here, fits the input, or has its guards hold).
func (s *step) fireFirst(ts ...Transition) (Transition, error) {
	for _, t := range ts {
		err := s.attempt(t)
		if err == nil {
			return t, nil
		}
		if !errors.Is(err, errRefused) {
			return "", err
		}
	}
	return "", nil
}

// mustFireFirst is fireFirst where one of ts must fire.
func (s *step) mustFireFirst(ts ...Transition) (Transition, error) {
	t, err := s.fireFirst(ts...)
	if err == nil && t == "" {
		err = fmt.Errorf("statemachine: none of %v fires from %s on %s (a bug)", ts, s.pos.Node, s.in.describe())
	}
	return t, err
}

// returnTo makes the move back to dst: the row from here that leads there (a task a recovery
// interrupted, a question a free-text answer interrupted, an action that failed). Its guards say
// that dst is indeed where the flow was.
func (s *step) returnTo(dst Node) error {
	var ts []Transition
	for _, r := range Table() {
		if r.To == dst && slices.Contains(r.From, s.pos.Node) {
			ts = append(ts, r.Name)
		}
	}
	_, err := s.mustFireFirst(ts...)
	return err
}

// describe names an input in an error message.
func (in Input) describe() string {
	switch in.Kind {
	case InputEvent:
		if in.Event == EventUserChose {
			return fmt.Sprintf("%s %s", in.Event, in.Choice)
		}
		return string(in.Event)
	}
	return string(in.Kind)
}
