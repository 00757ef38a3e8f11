package statemachine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// at moves the driver's clock to t0+d for the next input (send adds a minute).
func (d *drv) at(since time.Time, dt time.Duration) { d.now = since.Add(dt - time.Minute) }

func requireSnoozed(t *testing.T, act Action, until time.Time) {
	t.Helper()
	require.Equal(t, ActionPolling, act.Kind, "want a snoozed question, got %+v", act)
	require.True(t, until.Equal(act.SnoozedUntil), "snoozed until %v, want %v", act.SnoozedUntil, until)
	assert.Contains(t, act.Message, "snoozed")
}

func TestEveryQuestionOffersSnoozeBeforeStop(t *testing.T) {
	for _, spec := range elicitation.Catalogue() {
		vals := make([]elicitation.Value, len(spec.Choices))
		for i, c := range spec.Choices {
			vals[i] = c.Value
		}
		require.GreaterOrEqual(t, len(vals), 2, spec.ID)
		assert.Equal(t, []elicitation.Value{elicitation.Snooze, elicitation.Stop}, vals[len(vals)-2:], "%s", spec.ID)
	}
}

func TestASnoozedQuestionWaitsAnHourThenComesBackUnchanged(t *testing.T) {
	d := start(t)
	asked := d.poll(approvedPR())
	requireAsk(t, asked, elicitation.QReadyToMerge)
	snoozedAt := d.now.Add(time.Minute)
	act := d.choose(elicitation.Snooze)
	until := snoozedAt.Add(SnoozeFor)
	requireSnoozed(t, act, until)
	assert.Equal(t, NodeReadyAsk, act.Node, "the question stays open where it was")

	d.at(snoozedAt, 20*time.Minute)
	requireSnoozed(t, d.ev(EventReady, EventData{}), until)
	d.at(snoozedAt, 40*time.Minute)
	requireSnoozed(t, d.poll(approvedPR()), until)

	d.at(snoozedAt, SnoozeFor)
	back := d.ev(EventReady, EventData{})
	requireAsk(t, back, elicitation.QReadyToMerge)
	assert.Equal(t, asked.Question.Seq, back.Question.Seq, "the same question, so an answer to it still lands")
	assert.Nil(t, d.m.Position().Snooze, "an ended snooze is forgotten")
}

func TestASnoozeSurvivesARestart(t *testing.T) {
	d := start(t)
	d.poll(approvedPR())
	snoozedAt := d.now.Add(time.Minute)
	d.choose(elicitation.Snooze)

	m, err := Restore(DefaultConfig(), d.m.Position())
	require.NoError(t, err)
	act, err := m.Step(snoozedAt.Add(10*time.Minute), EventInput(EventReady, "", EventData{}))
	require.NoError(t, err)
	requireSnoozed(t, act, snoozedAt.Add(SnoozeFor))
	pending := m.Pending()
	assert.Equal(t, ActionPolling, pending.Kind, "Pending, without a clock, keeps the snooze")
}

func TestASnoozeEndsEarlyWhenThePullRequestChanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		news func(p *pr) *pr
		why  string
	}{
		{"a push", func(p *pr) *pr { return p.push("c2") }, "new commits were pushed"},
		{"a merge", func(p *pr) *pr { p.s.State, p.s.Merged, p.s.Closed = prstatus.StateMerged, true, true; return p }, "merged"},
		{"a new attention", func(p *pr) *pr { return p.conflict() }, "changed (merge_conflict)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := start(t)
			d.poll(approvedPR())
			d.choose(elicitation.Snooze)
			requireSnoozed(t, d.poll(approvedPR()), d.m.Position().Snooze.Until)
			act := d.poll(tc.news(approvedPR()))
			requireAsk(t, act, elicitation.QReadyToMerge)
			assert.Contains(t, act.Message, tc.why)
			assert.Nil(t, d.m.Position().Snooze)
		})
	}
}

func TestASnoozedQuestionCanStillBeAnswered(t *testing.T) {
	d := start(t)
	d.poll(newPR().conflict())
	d.choose(elicitation.Snooze)
	act := d.choose(elicitation.Rebase)
	requireExecute(t, act, TaskRebase)
	assert.Nil(t, d.m.Position().Snooze)
}

func TestSnoozingTheSameQuestionAgainSnoozesAgain(t *testing.T) {
	d := start(t)
	asked := d.poll(newPR().conflict())
	first := d.now.Add(time.Minute)
	d.choose(elicitation.Snooze)
	d.at(first, SnoozeFor)
	requireAsk(t, d.ev(EventReady, EventData{}), elicitation.QMergeConflict)

	again := d.now.Add(time.Minute)
	in := ChoiceInput(elicitation.Snooze)
	in.QuestionSeq = asked.Question.Seq
	requireSnoozed(t, d.send(in), again.Add(SnoozeFor))
	assert.Nil(t, d.m.Position().Answered, "a snooze is not an answer")
}

func TestAQuestionSavedBeforeSnoozeExistedCanBeSnoozed(t *testing.T) {
	d := start(t)
	d.poll(newPR().conflict())
	pos := d.m.Position()
	pos.Question.Choices = pos.Question.Choices[:0:0]
	for _, c := range d.m.Position().Question.Choices {
		if c.Value != elicitation.Snooze {
			pos.Question.Choices = append(pos.Question.Choices, c)
		}
	}
	m, err := Restore(DefaultConfig(), pos)
	require.NoError(t, err)
	act, err := m.Step(d.now.Add(time.Minute), ChoiceInput(elicitation.Snooze))
	require.NoError(t, err)
	assert.Equal(t, ActionPolling, act.Kind)
}
