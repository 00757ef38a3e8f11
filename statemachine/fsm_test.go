package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheTableRefusesWhatItDoesNotAllow drives looplab directly from a step: a row whose guard
// does not hold, a row that does not fire on the input, and a row that does not leave the node are
// refused, and the node stays where it was; the row that does hold moves it and is recorded.
func TestTheTableRefusesWhatItDoesNotAllow(t *testing.T) {
	d := start(t)
	d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
	require.Equal(t, NodeCommentsExplaining, d.m.pos.Node)
	pos, err := d.m.pos.clone()
	require.NoError(t, err)
	s := &step{cfg: d.m.cfg, now: d.now, in: EventInput(EventTaskComplete, "", EventData{}), pos: pos, m: d.m}
	d.m.f.SetState(string(pos.Node))

	tests := []struct {
		row  Transition
		want string
	}{
		{TCommentsExplainedInTurn, "guard explaining_all does not hold"},
		{TCommentsRecover, "guard unexpected_event does not hold"},
		{TCommentsCompose, "does not leave comments_explaining"},
		{TRefineDispatch, "does not leave comments_explaining"},
		{"comments_work", "comments_work does not exist"},
	}
	for _, tt := range tests {
		err := s.fire(tt.row)
		require.Error(t, err, tt.row)
		assert.Contains(t, err.Error(), tt.want)
		assert.Equal(t, NodeCommentsExplaining, s.pos.Node, "a refused move leaves the node")
	}
	s.in = StopInput()
	err = s.fire(TCommentsExplainedOne)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not fire on stop")

	s.in = EventInput(EventTaskComplete, "", EventData{})
	require.NoError(t, s.fire(TCommentsExplainedOne))
	assert.Equal(t, NodeCommentsSingle, s.pos.Node)
	assert.Equal(t, []Move{{TCommentsExplainedOne, NodeCommentsExplaining, NodeCommentsSingle}}, s.moves)
}
