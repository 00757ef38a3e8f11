package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// News that takes the merge off the table supersedes the open ready question at the poll that
// shows it: the user is not left a choice that no longer holds, and the news enters its own flow.
func TestNewsThatTakesTheMergeOffTheTableSupersedesTheReadyQuestion(t *testing.T) {
	for _, c := range []struct {
		name string
		news func(p *pr) *pr
		want func(t *testing.T, act Action)
	}{
		{"changes requested", func(p *pr) *pr { return p.review("bob", prstatus.ReviewChangesRequested, "rework the retries") },
			func(t *testing.T, act Action) { requireExecute(t, act, TaskRefine) }},
		{"CI failed", func(p *pr) *pr { return p.failing() },
			func(t *testing.T, act Action) { requireServer(t, act, ServerFetchCILogs) }},
		{"a conflict", func(p *pr) *pr { return p.conflict() },
			func(t *testing.T, act Action) { requireAsk(t, act, elicitation.QMergeConflict) }},
		{"new commits", func(p *pr) *pr { return p.push("c2").running() },
			func(t *testing.T, act Action) { assert.Equal(t, ActionPolling, act.Kind) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := approvedPR()
			d := start(t)
			asked := d.poll(p)
			requireAsk(t, asked, elicitation.QReadyToMerge)
			act := d.poll(c.news(p))
			c.want(t, act)
			assert.Contains(t, rowsOf(d.m.Moves()), TReadySuperseded)
			assert.NotEqual(t, NodeReadyAsk, d.m.Position().Node)
			in := ChoiceInput(elicitation.Merge).From(ByUser)
			in.QuestionSeq = asked.Question.Seq
			got, err := d.m.Step(p.tick(), in)
			if err == nil {
				require.False(t, got.Kind == ActionServer && merges(got.Server.Kind), "the old question's merge is not taken: %+v", got)
			}
		})
	}
}

func TestNewsThatKeepsTheMergeOnTheTableLeavesTheReadyQuestionOpen(t *testing.T) {
	p := approvedPR()
	d := start(t)
	asked := d.poll(p)
	requireAsk(t, asked, elicitation.QReadyToMerge)
	act := d.poll(p.review("dave", prstatus.ReviewApproved, "also lgtm"))
	requireAsk(t, act, elicitation.QReadyToMerge)
	assert.Equal(t, asked.Question.Seq, act.Question.Seq, "the same question stays open")
}

func rowsOf(moves []Move) []Transition {
	var out []Transition
	for _, m := range moves {
		out = append(out, m.Row)
	}
	return out
}
