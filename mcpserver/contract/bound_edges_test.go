package contract

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
	assert.Equal(t, ClipProse(long, levels[0].text), msg)
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

// TestProseAtExactlyItsLimitKeepsItsFence: ClipProse leaves text of exactly n bytes whole, fence
// included; one byte less and the text before the fence is what remains.
func TestProseAtExactlyItsLimitKeepsItsFence(t *testing.T) {
	s := "Before. " + statemachine.Untrusted("quoted").Fenced()
	assert.Equal(t, s, ClipProse(s, len(s)))
	assert.Equal(t, "Before. ", ClipProse(s, len(s)-1))
}

// TestACutTakesWhatIsOverItsLimitAndNothingAtIt: each cut of cutContext at its exact edge. A
// list, a body, a log tail or replies exactly at the level's limit pass whole and unnoted; one
// more is cut and noted; a reply gets half a comment's room; a free-text reply's thread and
// analysis are cut like the task's own.
func TestACutTakesWhatIsOverItsLimitAndNothingAtIt(t *testing.T) {
	l := limits{body: 100, tail: 50, text: 40, list: 3, replies: 2}
	threads := func(n int) []statemachine.ThreadContext {
		out := make([]statemachine.ThreadContext, n)
		for i := range out {
			out[i] = statemachine.ThreadContext{ID: "T" + strings.Repeat("i", i+1)}
		}
		return out
	}
	replies := func(n, size int) []statemachine.CommentContext {
		out := make([]statemachine.CommentContext, n)
		for i := range out {
			out[i] = statemachine.CommentContext{Author: "bob", Body: statemachine.Untrusted(strings.Repeat("r", size))}
		}
		return out
	}
	body := func(n int) statemachine.Untrusted { return statemachine.Untrusted(strings.Repeat("b", n)) }

	t.Run("at every limit nothing is cut", func(t *testing.T) {
		c := &statemachine.TaskContext{PR: statemachine.PRContext{URL: prURL}, Threads: threads(3),
			Thread:  &statemachine.ThreadContext{ID: "T", Comment: body(100), Replies: replies(2, 50)},
			Logs:    []statemachine.CheckLog{{Check: "test", Tail: statemachine.Untrusted(strings.Repeat("l", 50))}},
			Reviews: []statemachine.ReviewContext{{ID: "R", Body: body(100)}}, Recommendation: strings.Repeat("x", 40)}
		out := cutContext(c, l)
		assert.Empty(t, out.Omitted)
		assert.Len(t, out.Threads, 3)
		assert.Len(t, out.Thread.Replies, 2)
		assert.Equal(t, c.Thread.Comment, out.Thread.Comment)
		assert.Equal(t, c.Thread.Replies[0].Body, out.Thread.Replies[0].Body, "a reply of half the body's room is whole")
		assert.False(t, out.Logs[0].Truncated)
		assert.Equal(t, c.Logs[0].Tail, out.Logs[0].Tail)
		assert.Equal(t, c.Reviews[0].Body, out.Reviews[0].Body)
		assert.Equal(t, c.Recommendation, out.Recommendation)
	})
	t.Run("one over every limit is cut and noted", func(t *testing.T) {
		c := &statemachine.TaskContext{PR: statemachine.PRContext{URL: prURL}, Threads: threads(4),
			Thread:  &statemachine.ThreadContext{ID: "T", Comment: body(101), Replies: replies(3, 51)},
			Logs:    []statemachine.CheckLog{{Check: "test", Tail: statemachine.Untrusted(strings.Repeat("l", 51))}},
			Reviews: []statemachine.ReviewContext{{ID: "R", Body: body(101)}}, Recommendation: strings.Repeat("x", 41)}
		out := cutContext(c, l)
		assert.Len(t, out.Threads, 3)
		assert.Len(t, out.Thread.Replies, 2, "the newest replies")
		assert.LessOrEqual(t, len(out.Thread.Comment), 100)
		assert.LessOrEqual(t, len(out.Thread.Replies[0].Body), 50, "a reply gets half the body's room")
		assert.True(t, out.Logs[0].Truncated)
		assert.Len(t, out.Logs[0].Tail, 50)
		assert.LessOrEqual(t, len(out.Reviews[0].Body), 100)
		assert.LessOrEqual(t, len(out.Recommendation), 40)
		joined := strings.Join(out.Omitted, "\n")
		for _, says := range []string{"threads: the first 3 of 4", "thread T: the newest 2 of its 3 replies", "thread T comment: the first 100 of 101 bytes",
			"a reply in thread T: the first 50 of 51 bytes", "log_tails[0]: the last 50 bytes", "review R: the first 100 of 101 bytes",
			"recommendation: the first 40 of 41 bytes"} {
			assert.Contains(t, joined, says)
		}
	})
	t.Run("a free-text reply's thread and analysis are cut too", func(t *testing.T) {
		long := strings.Repeat("a", 41)
		c := &statemachine.TaskContext{PR: statemachine.PRContext{URL: prURL}, Freeform: &statemachine.FreeformContext{
			Thread:   &statemachine.ThreadContext{ID: "F", Comment: body(101)},
			Analysis: &statemachine.Analysis{Recommendation: long, Findings: long, SuggestedFix: long}}}
		out := cutContext(c, l)
		require.NotNil(t, out.Freeform.Thread)
		assert.LessOrEqual(t, len(out.Freeform.Thread.Comment), 100)
		require.NotNil(t, out.Freeform.Analysis)
		for _, s := range []string{out.Freeform.Analysis.Recommendation, out.Freeform.Analysis.Findings, out.Freeform.Analysis.SuggestedFix} {
			assert.LessOrEqual(t, len(s), 40)
		}
		assert.Equal(t, long, c.Freeform.Analysis.Recommendation, "the machine's copy is never changed")
		assert.Equal(t, body(101), c.Freeform.Thread.Comment)

		none := cutContext(&statemachine.TaskContext{Freeform: &statemachine.FreeformContext{}}, l)
		assert.Nil(t, none.Freeform.Thread, "no thread is made up")
		assert.Nil(t, none.Freeform.Analysis, "no analysis is made up")
	})
}

// TestALogTailKeepsItsLastBytesFromALineStartNearby: keepEnd leaves a tail of exactly n bytes
// whole; a longer one keeps its last bytes, marked as cut, n in all, starting at a line when one
// begins within the first quarter of them, and never inside a character.
func TestALogTailKeepsItsLastBytesFromALineStartNearby(t *testing.T) {
	exact := strings.Repeat("x", 40)
	assert.Equal(t, exact, keepEnd(exact, 40))

	long := strings.Repeat("x", 100)
	got := keepEnd(long, 40)
	assert.Len(t, got, 40)
	assert.True(t, strings.HasPrefix(got, "…\n"+"xxx"), got)

	lines := strings.Repeat("y", 60) + "\n" + strings.Repeat("z", 39) + "\nlast line"
	got = keepEnd(lines, 60)
	assert.Equal(t, "…\n"+"last line", got[:len("…\n")]+got[len(got)-len("last line"):])
	assert.NotContains(t, got, "y", "the cut starts at the line that begins near its start")
	assert.True(t, strings.HasPrefix(got, "…\n"+"z"), got)

	far := strings.Repeat("y", 60) + "\n" + strings.Repeat("z", 50)
	got = keepEnd(far, 40)
	assert.Equal(t, "…\n"+strings.Repeat("z", 36), got, "no line starts within a quarter of the room: the last bytes as they are")

	edge := strings.Repeat("y", 74) + "\n" + strings.Repeat("z", 25)
	got = keepEnd(edge, 40)
	assert.Equal(t, "…\n"+strings.Repeat("y", 10)+"\n"+strings.Repeat("z", 25), got, "a line a quarter of the room away is too far")

	wide := strings.Repeat("é", 40)
	got = keepEnd(wide, 21)
	assert.True(t, strings.HasPrefix(got, "…\né"), "the cut moves to a character's start: %q", got)
	assert.LessOrEqual(t, len(got), 21, "forward, never over the room")

	broken := strings.Repeat("x", 10) + strings.Repeat("\x80", 10)
	assert.Equal(t, "…\n", keepEnd(broken, 8), "a tail of stray continuation bytes leaves only the mark")
}
