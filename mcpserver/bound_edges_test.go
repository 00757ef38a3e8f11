package mcpserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/statemachine"
)

// TestFitCutsOnlyWhatDoesNotFitAndStopsAtTheFirstLevelThatFits drives fit with a measure that
// reports scripted sizes: a context exactly at the budget is left whole, and one that fits after
// the first level's cut keeps that level's cut, not a deeper one.
func TestFitCutsOnlyWhatDoesNotFitAndStopsAtTheFirstLevelThatFits(t *testing.T) {
	const budget = 1000
	h := newHuge()
	orig := &statemachine.TaskContext{PR: h.pr(), Threads: h.threads[:100]}
	long := strings.Repeat("m", levels[0].text+500)
	scripted := func(sizes ...int) func() int {
		return func() int {
			require.NotEmpty(t, sizes, "fit measured once more than the script says")
			n := sizes[0]
			sizes = sizes[1:]
			return n
		}
	}

	ctx, msg := orig, long
	fit(budget, &ctx, &msg, scripted(budget))
	assert.Same(t, orig, ctx, "exactly the budget fits: nothing is cut")
	assert.Equal(t, long, msg)

	ctx, msg = orig, long
	fit(budget, &ctx, &msg, scripted(budget+1, budget))
	assert.Equal(t, cutContext(orig, levels[0]), ctx, "one byte over: the first level's cut, which fits exactly")
	assert.Len(t, ctx.Threads, levels[0].list)
	assert.Equal(t, clipProse(long, levels[0].text), msg)
	assert.LessOrEqual(t, len(msg), levels[0].text)

	ctx, msg = orig, long
	fit(budget, &ctx, &msg, scripted(budget+1, budget+1, budget))
	assert.Len(t, ctx.Threads, levels[1].list, "the second level when the first does not fit")
}

// TestAQuestionIsCutOnlyPastItsBound: a question of exactly maxQuestion bytes goes whole; one byte
// more is cut to half the bound, before its first fence, with a pointer to the rest.
func TestAQuestionIsCutOnlyPastItsBound(t *testing.T) {
	fenced := statemachine.Untrusted("a reviewer's words").Fenced()
	head := "The question. "
	exact := head + fenced + strings.Repeat("x", maxQuestion-len(head)-len(fenced))
	require.Len(t, exact, maxQuestion)
	assert.Equal(t, exact, boundQuestion(exact))

	over := exact + "x"
	got := boundQuestion(over)
	assert.True(t, strings.HasPrefix(got, head), got)
	assert.NotContains(t, got, "<<<untrusted", "a cut never keeps half a fence")
	assert.Contains(t, got, "The rest of this question is too long to show")
	assert.Less(t, len(got), maxQuestion/2+200, "cut to half the bound")

	prose := strings.Repeat("y", maxQuestion+1)
	got = boundQuestion(prose)
	assert.True(t, strings.HasPrefix(got, strings.Repeat("y", 100)), "prose without a fence is clipped, not dropped")
	assert.LessOrEqual(t, len(got), maxQuestion/2+len("\n(The rest of this question is too long to show; see the pull request on GitHub.)"))
	assert.Greater(t, len(got), maxQuestion/2-10, "half the bound is kept")
}

// TestProseAtExactlyItsLimitKeepsItsFence: clipProse leaves text of exactly n bytes whole, fence
// included; one byte less and the text before the fence is what remains.
func TestProseAtExactlyItsLimitKeepsItsFence(t *testing.T) {
	s := "Before. " + statemachine.Untrusted("quoted").Fenced()
	assert.Equal(t, s, clipProse(s, len(s)))
	assert.Equal(t, "Before. ", clipProse(s, len(s)-1))
}
