package monitor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/statemachine"
)

// TestTheEventLogSaysWhichQuestionAnAnswerAnswered: an answer's event names the open question
// when the answer names no seq or that question's, keeps a seq it names otherwise, and an input
// that answers nothing names no question.
func TestTheEventLogSaysWhichQuestionAnAnswerAnswered(t *testing.T) {
	open := &elicitation.Question{ID: elicitation.QMergeConflict, Seq: 4}
	choose := func(seq int) statemachine.Input {
		in := statemachine.ChoiceInput(elicitation.Rebase)
		in.QuestionSeq = seq
		return in
	}
	for _, tc := range []struct {
		name string
		open *elicitation.Question
		in   statemachine.Input
		want *store.QuestionRef
	}{
		{"a choice without a seq", open, choose(0), &store.QuestionRef{ID: string(elicitation.QMergeConflict), Seq: 4}},
		{"a choice with the open question's seq", open, choose(4), &store.QuestionRef{ID: string(elicitation.QMergeConflict), Seq: 4}},
		{"a choice with another seq", open, choose(2), &store.QuestionRef{Seq: 2}},
		{"a choice with a seq and nothing open", nil, choose(2), &store.QuestionRef{Seq: 2}},
		{"a choice with neither", nil, choose(0), nil},
		{"a declined form", open, statemachine.Input{Kind: statemachine.InputDecline}, &store.QuestionRef{ID: string(elicitation.QMergeConflict), Seq: 4}},
		{"an agent's event", open, statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, inputEvent(tc.open, tc.in).Answered)
		})
	}
}

// TestAStepReadsAsALineInTheMachinesNames: describeStep names the input (an event with its
// choice, a poll with its attention, GitHub work with how it went) and where the machine went.
func TestAStepReadsAsALineInTheMachinesNames(t *testing.T) {
	act := statemachine.Action{Kind: statemachine.ActionPolling, Node: "polling"}
	assert.Equal(t, "ready → polling at polling", describeStep(statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}), act))
	assert.Equal(t, "user_chose rebase → polling at polling", describeStep(statemachine.ChoiceInput(elicitation.Rebase), act))
	ok := statemachine.OutcomeInput(statemachine.Outcome{Kind: statemachine.ServerPostReply, OK: true})
	assert.Equal(t, string(statemachine.ServerPostReply)+" → polling at polling", describeStep(ok, act))
	failed := statemachine.OutcomeInput(statemachine.Outcome{Kind: statemachine.ServerPostReply, Error: "403"})
	assert.Equal(t, string(statemachine.ServerPostReply)+" failed: 403 → polling at polling", describeStep(failed, act))
}
