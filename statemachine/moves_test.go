package statemachine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkMoves holds one step's moves to the table, independently of the machinery that made them:
// each move is a row of the table, leaving a node the row lists for the node the row names, on a
// trigger of the kind the input is; the moves chain from the node before the step to the node
// after it, so the node never changes without a move the table names.
func checkMoves(before, after Node, in Input, moves []Move) error {
	at := before
	for _, mv := range moves {
		r, ok := rowsByName()[mv.Row]
		switch {
		case !ok:
			return fmt.Errorf("move %s is no row of the table", mv.Row)
		case mv.From != at:
			return fmt.Errorf("move %s leaves %s, but the monitor was at %s", mv.Row, mv.From, at)
		case !slices.Contains(r.From, mv.From):
			return fmt.Errorf("row %s does not leave %s", mv.Row, mv.From)
		case mv.To != r.To:
			return fmt.Errorf("row %s leads to %s, not %s", mv.Row, r.To, mv.To)
		case !slices.ContainsFunc(r.On, func(t Trigger) bool { return kindFits(t.By, in, mv.From) }):
			return fmt.Errorf("row %s does not fire on a %s input", mv.Row, in.Kind)
		}
		at = mv.To
	}
	if at != after {
		return fmt.Errorf("the node changed from %s to %s, but the moves %v end at %s", before, after, moves, at)
	}
	return nil
}

// firedBy says which trigger kinds each kind of input can fire, whatever the flow code does with
// it: an event fires event rows, and choice rows when it is user_chose; a decline means a choice.
var firedBy = map[InputKind][]TriggerKind{
	InputEvent: {ByEvent, ByChoice}, InputDecline: {ByChoice}, InputFreeform: {ByFreeform}, InputPoll: {ByPoll},
	InputOutcome: {ByOutcome}, InputHead: {ByHead}, InputStop: {ByStop},
}

func kindFits(by TriggerKind, in Input, from Node) bool {
	if by == ByDecision { // within the step, out of a transient node
		return from.transient()
	}
	if by == ByChoice && in.Kind == InputEvent && in.Event != EventUserChose {
		return false
	}
	return slices.Contains(firedBy[in.Kind], by)
}

// TestCheckMovesCatchesUnnamedMoves proves the check the random walks and the fuzzer run after
// every step can fail: a node change without a move, a move the table does not name, a row from
// elsewhere, a wrong target, a broken chain and a row fired by the wrong kind of input are all
// reported.
func TestCheckMovesCatchesUnnamedMoves(t *testing.T) {
	poll, choice := Input{Kind: InputPoll}, ChoiceInput("refine_again")
	tests := []struct {
		name          string
		before, after Node
		in            Input
		moves         []Move
	}{
		{"the node changed without a move", NodePolling, NodeRefineWorking, poll, nil},
		{"a move the table does not name", NodePolling, NodeRefineWorking, poll, []Move{{"refine_begin_work", NodePolling, NodeRefineWorking}}},
		{"a row from another node", NodeRefineStalled, NodeRefineWorking, choice, []Move{{TRefineDispatch, NodeRefineStalled, NodeRefineWorking}}},
		{"a row to another node", NodePolling, NodeRefineStalled, poll, []Move{{TRefineDispatch, NodePolling, NodeRefineStalled}}},
		{"a broken chain", NodePolling, NodeRefineWorking, poll, []Move{{TRefineAgain, NodeRefineStalled, NodeRefineWorking}}},
		{"the wrong kind of input", NodePolling, NodeRefineWorking, choice, []Move{{TRefineDispatch, NodePolling, NodeRefineWorking}}},
		{"moves that end elsewhere", NodePolling, NodePolling, poll, []Move{{TRefineDispatch, NodePolling, NodeRefineWorking}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Error(t, checkMoves(tt.before, tt.after, tt.in, tt.moves))
		})
	}
	require.NoError(t, checkMoves(NodePolling, NodeRefineWorking, poll, []Move{{TRefineDispatch, NodePolling, NodeRefineWorking}}))
	require.NoError(t, checkMoves(NodeRefineStalled, NodeRefineWorking, choice, []Move{{TRefineAgain, NodeRefineStalled, NodeRefineWorking}}))
}
