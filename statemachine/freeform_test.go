package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
)

func freeText(s string) Input {
	return FreeformInput(FreeformAnswer{Text: s, Classification: elicitation.ClassifiedUnavailable})
}

// TestTheFreeTextContextCarriesTheAnalysisExactlyWhenThereIsOne: the agent interpreting the user's
// words gets the analysis the question showed (a comment's recommendation, CI's findings and fix),
// and no empty analysis when there was none.
func TestTheFreeTextContextCarriesTheAnalysisExactlyWhenThereIsOne(t *testing.T) {
	for _, tt := range []struct {
		name string
		to   func(d *drv) // brings d to a question that takes free text
		want *Analysis
	}{
		{"an explained comment with a recommendation", func(d *drv) {
			d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
			d.ev(EventTaskComplete, EventData{Recommendation: "agree and rename"})
		}, &Analysis{Recommendation: "agree and rename"}},
		{"an explained comment without one", func(d *drv) {
			d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
			d.ev(EventTaskComplete, EventData{})
		}, nil},
		{"failed CI with findings and a fix", func(d *drv) {
			d.poll(newPR().failing())
			d.ok(ServerFetchCILogs)
			d.ev(EventInvestigationComplete, EventData{Findings: "flaky network", SuggestedFix: "retry the download"})
		}, &Analysis{Findings: "flaky network", SuggestedFix: "retry the download"}},
		{"failed CI with a fix only", func(d *drv) {
			d.poll(newPR().failing())
			d.ok(ServerFetchCILogs)
			d.ev(EventInvestigationComplete, EventData{SuggestedFix: "retry the download"})
		}, &Analysis{SuggestedFix: "retry the download"}},
		{"failed CI without an analysis", func(d *drv) {
			d.poll(newPR().failing())
			d.ok(ServerFetchCILogs)
			d.ev(EventInvestigationComplete, EventData{})
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			tt.to(d)
			act := d.send(freeText("hmm, what about the other file"))
			requireExecute(t, act, TaskInterpretFreeform)
			assert.Equal(t, tt.want, act.Context.Freeform.Analysis)
		})
	}
}

// TestAnInterpretedCommentKeepsItsRecommendationUnlessTheAgentGivesANewOne: back from free text,
// the explained comment's question shows the agent's new recommendation, or the one it had.
func TestAnInterpretedCommentKeepsItsRecommendationUnlessTheAgentGivesANewOne(t *testing.T) {
	for _, tt := range []struct {
		name, given, shown string
	}{
		{"no new recommendation keeps the first", "", "Recommendation: agree and rename"},
		{"a new recommendation replaces it", "rename it in a follow-up", "Recommendation: rename it in a follow-up"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := start(t)
			d.poll(newPR().thread("T1", "bob", "a.go", 1, "x"))
			d.ev(EventTaskComplete, EventData{Recommendation: "agree and rename"})
			d.send(freeText("what would that break?"))
			act := d.ev(EventTaskComplete, EventData{Recommendation: tt.given})
			require.Equal(t, ActionAskUser, act.Kind)
			assert.Contains(t, act.Question.Text, tt.shown)
		})
	}
}

// TestAQuestionBackFromFreeTextIsANewQuestion: the question asked again after the agent
// interpreted free text carries a new sequence number, so an answer to the earlier one is stale.
func TestAQuestionBackFromFreeTextIsANewQuestion(t *testing.T) {
	d := start(t)
	d.poll(approvedPR())
	before := d.m.pos.Question.Seq
	d.send(freeText("not yet, maybe tomorrow"))
	act := d.ev(EventTaskComplete, EventData{})
	requireAsk(t, act, elicitation.QReadyToMerge)
	assert.Greater(t, act.Question.Seq, before)
	stale := ChoiceInput(elicitation.Resume)
	stale.QuestionSeq = before
	d.reject(stale, ErrStaleAnswer)
}
