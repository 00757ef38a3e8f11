package contract

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/statemachine"
)

func TestWhoseTheAgentsAnswerIsFollowsOnlyFromHowTheQuestionWentToIt(t *testing.T) {
	q := QuestionKey{Monitor: "acme/widgets#7", Run: "run-a", Seq: 1}
	for _, c := range []struct {
		name   string
		policy Policy
		why    NotShown
		ask    QuestionKey // the question the agent answers
		want   statemachine.AnsweredBy
	}{
		{"a form the host failed: relayed", Policy{}, FormFailed, q, statemachine.ByRelay},
		{"the same over stdio", Policy{ConnectionIsHost: true}, FormFailed, q, statemachine.ByRelay},
		{"a session that declares no forms over HTTP: the agent's", Policy{}, NoForms, q, ""},
		{"the stdio host that shows no forms: relayed", Policy{ConnectionIsHost: true}, NoForms, q, statemachine.ByRelay},
		{"a task that cannot ask over HTTP: the agent's", Policy{}, TaskCannotAsk, q, ""},
		{"a task that cannot ask on stdio: relayed", Policy{ConnectionIsHost: true}, TaskCannotAsk, q, statemachine.ByRelay},
		{"a dismissed form: never relayed", Policy{ConnectionIsHost: true}, Dismissed, q, ""},
		{"no relayed merges: never", Policy{NoRelayedMerge: true, ConnectionIsHost: true}, FormFailed, q, ""},
		{"another run's question with the same seq", Policy{}, FormFailed, QuestionKey{Monitor: q.Monitor, Run: "run-b", Seq: 1}, ""},
		{"another question of the run", Policy{}, FormFailed, QuestionKey{Monitor: q.Monitor, Run: q.Run, Seq: 2}, ""},
		{"another monitor's question", Policy{}, FormFailed, QuestionKey{Monitor: "acme/widgets#8", Run: q.Run, Seq: 1}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := NewRelays(c.policy)
			relayed := r.Handed(q, c.why)
			assert.Equal(t, c.want == statemachine.ByRelay && c.ask == q, relayed && c.ask == q)
			in := r.AgentAnswer(statemachine.ChoiceInput(elicitation.Merge).From(statemachine.ByRelay), c.ask, false)
			assert.Equal(t, c.want, in.By, "whatever the input claimed")
		})
	}
}

func TestAHostWithoutFormsIsTakenAtItsWordOnlyWhereTheConnectionIsTheHost(t *testing.T) {
	q := QuestionKey{Monitor: "m", Seq: 1}
	merge := statemachine.ChoiceInput(elicitation.Merge)
	assert.Equal(t, statemachine.ByRelay, NewRelays(Policy{ConnectionIsHost: true}).AgentAnswer(merge, q, true).By, "stdio")
	assert.Equal(t, statemachine.AnsweredBy(""), NewRelays(Policy{}).AgentAnswer(merge, q, true).By, "a session over HTTP")
	assert.Equal(t, statemachine.AnsweredBy(""), NewRelays(Policy{ConnectionIsHost: true, NoRelayedMerge: true}).AgentAnswer(merge, q, true).By)
	assert.Equal(t, statemachine.AnsweredBy(""), NewRelays(Policy{ConnectionIsHost: true}).AgentAnswer(merge, q, false).By, "a host with forms")
}

func TestARelayEndsWhenAFormOfTheQuestionReachesAHost(t *testing.T) {
	r := NewRelays(Policy{})
	q := QuestionKey{Monitor: "m", Run: "r", Seq: 3}
	assert.True(t, r.Handed(q, FormFailed))
	assert.True(t, r.Relayed(q))
	r.Shown(q)
	assert.False(t, r.Relayed(q))
	assert.Equal(t, statemachine.AnsweredBy(""), r.AgentAnswer(statemachine.ChoiceInput(elicitation.Merge), q, false).By)
}

func TestOnlyTheAgentsChoiceIsMarked(t *testing.T) {
	r := NewRelays(Policy{})
	q := QuestionKey{Monitor: "m", Seq: 1}
	r.Handed(q, FormFailed)
	for _, in := range []statemachine.Input{
		statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}),
		statemachine.DeclineInput(),
		statemachine.FreeformInput(statemachine.FreeformAnswer{Text: "merge it"}),
	} {
		assert.Equal(t, in, r.AgentAnswer(in, q, true), "%s %s", in.Kind, in.Event)
	}
}

func TestTheRecordOfRelaysKeepsEveryQuestionUpToItsBound(t *testing.T) {
	r := NewRelays(Policy{})
	a, b := QuestionKey{Monitor: "a", Seq: 1}, QuestionKey{Monitor: "b", Seq: 1}
	r.Handed(a, FormFailed)
	r.Handed(b, FormFailed)
	assert.True(t, r.Relayed(a), "the first is kept beside the second")
	assert.True(t, r.Relayed(b))
	for i := range maxRelays - 1 {
		r.Handed(QuestionKey{Monitor: fmt.Sprint(i), Seq: 2}, FormFailed)
	}
	r.mu.Lock()
	n := len(r.handed)
	r.mu.Unlock()
	assert.LessOrEqual(t, n, maxRelays, "one past the bound: the record starts again")
}

func TestTheRecordOfRelaysIsBounded(t *testing.T) {
	r := NewRelays(Policy{})
	for i := range maxRelays + 5 {
		r.Handed(QuestionKey{Monitor: fmt.Sprint(i), Seq: 1}, FormFailed)
	}
	r.mu.Lock()
	n := len(r.handed)
	r.mu.Unlock()
	assert.LessOrEqual(t, n, maxRelays)
	assert.True(t, r.Relayed(QuestionKey{Monitor: fmt.Sprint(maxRelays + 4), Seq: 1}), "the latest is kept")
}

func TestWhatTheAgentIsToldWhenItsAnswerIsNotARelay(t *testing.T) {
	merging := []elicitation.Value{elicitation.Merge}
	for _, c := range []struct {
		name, own string
		why       NotShown
		relayed   bool
		merging   []elicitation.Value
		has, not  string
	}{
		{"a failed form, relayed", "", FormFailed, true, merging, "could not show this question", "only"},
		{"no forms, relayed", "", NoForms, true, merging, "Ask the user this question", "only"},
		{"no forms, not relayed", "", NoForms, false, merging, "[merge] only the user's own pick in a form", "could not show"},
		{"dismissed", "", Dismissed, false, merging, "dismissed the host's prompt: [merge] only their own pick there", "could not show"},
		{"nothing merges", "", NoForms, false, nil, "Ask the user this question", "only"},
		{"the action's own words", "Pick one.", NoForms, false, merging, "Pick one. [merge] only", "Ask the user"},
	} {
		t.Run(c.name, func(t *testing.T) {
			msg := AskAgentMessage(c.own, c.why, c.relayed, c.merging)
			assert.Contains(t, msg, c.has)
			assert.NotContains(t, msg, c.not)
		})
	}
	assert.Contains(t, Refusal("x", true), "not from your reading of their words (x)")
	assert.Contains(t, Refusal("x", false), "refused, nothing changed")
}
