package elicitation

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustAsk(t *testing.T, id QuestionID, values ...Value) Question {
	t.Helper()
	q, err := Ask(id, "?", values)
	require.NoError(t, err)
	return q
}

func TestMatch(t *testing.T) {
	ready := mustAsk(t, QReadyToMerge, Merge, WaitForApprover, Resume, HandleMyself, Stop)
	ci := mustAsk(t, QCIResults, ApplyFix, RerunFailed, HandleMyself, Stop)
	pick, err := Ask(QCommentPick, "?", []Value{HandleMyself, Stop}, Choice{Pick(1), "1. bob: a"}, Choice{Pick(2), "2. eve: b"})
	require.NoError(t, err)

	tests := []struct {
		name string
		q    Question
		in   string
		want Value
		ok   bool
	}{
		{"exact value", ready, "wait_for_approver", WaitForApprover, true},
		{"value with spaces", ready, "wait for approver", WaitForApprover, true},
		{"label any case", ready, "MERGE THE PULL REQUEST", Merge, true},
		{"label with punctuation", ready, "I'll handle it myself!", HandleMyself, true},
		{"ordinal digit", ready, "2", WaitForApprover, true},
		{"ordinal hash", ready, "#3", Resume, true},
		{"ordinal word", ready, "the first one", Merge, true},
		{"option n", ci, "option 2", RerunFailed, true},
		{"last", ci, "last", Stop, true},
		{"out of range", ci, "9", "", false},
		{"synonym with fillers", ready, "ok merge it please", Merge, true},
		{"synonym stop", ci, "quit", Stop, true},
		{"synonym rerun", ci, "re-run", RerunFailed, true},
		{"negation never matches", ready, "don't merge", "", false},
		{"bare yes is not a merge", ready, "yes", "", false},
		{"free instruction", ci, "rerun but also bump the timeout", "", false},
		{"synonym of a choice not offered", ci, "merge", "", false},
		{"empty", ready, "   ", "", false},
		{"pick by ordinal", pick, "2", Pick(2), true},
		{"pick by value", pick, "pick:1", Pick(1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Match(tt.in, tt.q)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMatchAmbiguousSynonym(t *testing.T) {
	// "again" is a synonym of both refine_again and retry; offered together it must not match.
	q := Question{ID: QRefineStalled, Choices: []Choice{{RefineAgain, "Refine again"}, {Retry, "Try again"}}}
	_, ok := Match("again", q)
	assert.False(t, ok)
}

func FuzzMatch(f *testing.F) {
	q, err := Ask(QReadyToMerge, "?", []Value{Merge, WaitForApprover, Resume, HandleMyself, Stop})
	require.NoError(f, err)
	for _, s := range []string{"merge", "2", "#9", "the last one", "please", "", "\u2066merge\u2069"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Match(s, q)
		if ok && !q.Offers(v) {
			t.Fatalf("Match(%q) = %q, not offered", s, v)
		}
	})
}

func TestWordsForLaterMatchSnooze(t *testing.T) {
	q := mustAsk(t, QReadyToMerge, Merge, WaitForApprover, HandleMyself, Snooze, Stop)
	for _, in := range []string{"snooze", "later", "ask me again later", "Ask me again in 1 hour", "ok, later please"} {
		v, ok := Match(in, q)
		assert.True(t, ok, in)
		assert.Equal(t, Snooze, v, in)
	}
	_, ok := Match("wait", q)
	assert.True(t, ok, "wait stays wait for approver")
}

// TestOrdinalsReachEveryChoiceAndNoneBeyond: a number picks a choice from the first to the last,
// never one past either end, and "last" means nothing when there is no choice.
func TestOrdinalsReachEveryChoiceAndNoneBeyond(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want int
		ok   bool
	}{
		{"1", 3, 1, true},
		{"#3", 3, 3, true},
		{"option 3", 3, 3, true},
		{"the third one", 3, 3, true},
		{"4", 3, 0, false},
		{"0", 3, 0, false},
		{"last", 3, 3, true},
		{"last", 0, 0, false},
		{"1", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s of %d", tt.in, tt.n), func(t *testing.T) {
			got, ok := ordinal(tt.in, tt.n)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestAQuestionOffersOnlyItsOwnChoices(t *testing.T) {
	q := Question{Choices: []Choice{{Value: Rebase, Label: "Rebase"}, {Value: Stop, Label: "Stop"}}}
	assert.True(t, q.Offers(Rebase))
	assert.True(t, q.Offers(Stop))
	assert.False(t, q.Offers(Snooze))
}
