package statemachine

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

// The call that answered "address" lost its response (the server was killed inside it); the agent
// sends the same answer again. It gets the task that answer entered, whether it names the question
// or not, and nothing moves; a different answer, or one to another question, is still refused.
func TestARepeatedAnswerReturnsTheTaskItEntered(t *testing.T) {
	d := start(t)
	requireAsk(t, d.poll(threePR()), elicitation.QCommentsMulti)
	item := d.choose(elicitation.AddressAll)
	requireAsk(t, item, elicitation.QCommentItem)
	task := d.choose(elicitation.Address)
	requireExecute(t, task, TaskAddressComment)
	saved := mustJSON(t, d.m.Position())

	for _, seq := range []int{item.Question.Seq, 0} {
		in := ChoiceInput(elicitation.Address)
		in.QuestionSeq = seq
		m, err := Restore(DefaultConfig(), d.m.Position()) // a restarted server
		require.NoError(t, err)
		d.m = m
		again := d.send(in)
		requireExecute(t, again, TaskAddressComment, task.ExpectedEvents...)
		assert.Equal(t, task.Context.Thread.ID, again.Context.Thread.ID)
		assert.Equal(t, task.Instructions, again.Instructions)
		assert.Equal(t, `"address" was already taken as the answer to question `+fmt.Sprint(item.Question.Seq)+"; this is what it led to.",
			again.Message, "the agent is told why it gets the task again")
		assert.JSONEq(t, saved, mustJSON(t, d.m.Position()), "a repeated answer changes nothing")
	}

	d.reject(ChoiceInput(elicitation.Skip), ErrNoQuestion)
	older := ChoiceInput(elicitation.AddressAll)
	older.QuestionSeq = item.Question.Seq - 1
	d.reject(older, ErrNoQuestion)
}

// A repeated answer after the flow moved on gets what is open now (the next question), which it
// does not answer.
func TestARepeatedAnswerToAnEarlierQuestionShowsTheOpenOne(t *testing.T) {
	d := start(t)
	d.poll(threePR())
	item := d.choose(elicitation.AddressAll)
	next := d.choose(elicitation.Skip)
	requireAsk(t, next, elicitation.QCommentItem)
	require.Contains(t, next.Question.Text, "2/3")

	in := ChoiceInput(elicitation.Skip)
	in.QuestionSeq = item.Question.Seq
	again := d.send(in)
	requireAsk(t, again, elicitation.QCommentItem)
	assert.Equal(t, next.Question.Seq, again.Question.Seq, "the open question, unanswered")
	assert.Equal(t, 1, d.m.Position().Comments.Index, "still on the second comment")
}

// After a restart the agent may never have received the task in progress; its ready then gets the
// task back instead of a recovery question, unless a push completed the task meanwhile.
func TestAReadyForATaskTheAgentMayNotHaveGetsItBack(t *testing.T) {
	begin := func(t *testing.T) (*drv, Action) {
		d := start(t)
		d.poll(threePR())
		d.choose(elicitation.AddressAll)
		task := d.choose(elicitation.Address)
		requireExecute(t, task, TaskAddressComment)
		return d, task
	}
	unseenReady := func() Input {
		in := EventInput(EventReady, "", EventData{})
		in.TaskUnseen = true
		return in
	}

	t.Run("nothing pushed: the task again", func(t *testing.T) {
		d, task := begin(t)
		requireServer(t, d.send(unseenReady()), ServerFetchHead)
		again := d.head(sha("c1"))
		requireExecute(t, again, TaskAddressComment, task.ExpectedEvents...)
		assert.Equal(t, task.Context.Thread.ID, again.Context.Thread.ID)
		requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "done"}), ServerPostReply)
	})
	t.Run("the head could not be read: the task again", func(t *testing.T) {
		d, _ := begin(t)
		d.send(unseenReady())
		requireExecute(t, d.send(HeadInput(HeadRefresh{Error: "timeout"})), TaskAddressComment)
	})
	t.Run("pushed: completed as addressed", func(t *testing.T) {
		d, _ := begin(t)
		d.send(unseenReady())
		requireExecute(t, d.head(sha("c2")), TaskComposeReply, EventCommentAddressed)
	})
	t.Run("a task the agent has: ready still asks", func(t *testing.T) {
		d, _ := begin(t)
		d.ev(EventReady, EventData{})
		requireAsk(t, d.head(sha("c1")), elicitation.QRecovery)
	})
}
