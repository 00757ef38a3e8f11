package statemachine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// Lists in questions are bounded (at most maxListed entries, the rest counted) and numbered as the
// user picks them; excerpts of GitHub text read no more than they show.

func checkFacts(n, external int) []prstatus.CheckFact {
	cs := make([]prstatus.CheckFact, n)
	for i := range cs {
		cs[i] = prstatus.CheckFact{Name: fmt.Sprintf("check-%d", i+1), Result: "FAILURE", JobID: int64(100 + i), WorkflowRunID: 7}
		if i < external {
			cs[i].JobID, cs[i].WorkflowRunID = 0, 0 // a status or an app's check: not re-runnable here
		}
	}
	return cs
}

func TestACheckListShowsAtMostTenChecksAndCountsTheRest(t *testing.T) {
	s := &step{pos: Position{Monitor: Monitor{URL: "https://github.com/acme/widgets/pull/7"}}}
	for _, tt := range []struct {
		name       string
		checks     int
		listed     int
		more       string
		notRerun   string // the numbers named as external, "" when none is
		noneBeyond string // a number that must not be listed
	}{
		{name: "nine checks are all listed", checks: 9, listed: 9, noneBeyond: "10. "},
		{name: "ten checks are all listed, nothing counted", checks: 10, listed: 10, noneBeyond: "11. "},
		{name: "eleven checks list ten and count one", checks: 11, listed: 10, more: "…and 1 more checks", noneBeyond: "11. "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := s.checkList(checkFacts(tt.checks, 0))
			for i := 1; i <= tt.listed; i++ {
				assert.Contains(t, got, fmt.Sprintf("%d. check-%d", i, i))
			}
			assert.NotContains(t, got, tt.noneBeyond)
			if tt.more == "" {
				assert.NotContains(t, got, "more", "nothing is left out")
			} else {
				assert.Contains(t, got, tt.more+", not listed here; see them all at https://github.com/acme/widgets/pull/7.")
			}
			assert.NotContains(t, got, "external CI", "every check is an Actions job")
		})
	}
}

func TestAChecksListNamesTheExternalChecksByTheirNumbersAndCountsThemPastTen(t *testing.T) {
	s := &step{}
	for _, tt := range []struct {
		name     string
		checks   int
		external int
		want     string
	}{
		{name: "one external check is named by its number", checks: 3, external: 1,
			want: "Not re-runnable from here (external CI): 1."},
		{name: "three external checks", checks: 4, external: 3,
			want: "Not re-runnable from here (external CI): 1, 2, 3."},
		{name: "exactly ten external checks are all named", checks: 10, external: 10,
			want: "Not re-runnable from here (external CI): 1, 2, 3, 4, 5, 6, 7, 8, 9, 10."},
		{name: "twelve external checks name ten and count two", checks: 12, external: 12,
			want: "Not re-runnable from here (external CI): 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2 more."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.True(t, strings.HasSuffix(s.checkList(checkFacts(tt.checks, tt.external)), "\n"+tt.want),
				"%q", s.checkList(checkFacts(tt.checks, tt.external)))
		})
	}
}

func TestMoreSaysNothingWhenNothingWasLeftOut(t *testing.T) {
	s := &step{}
	for _, tt := range []struct {
		n    int
		want string
	}{
		{-3, ""},
		{0, ""},
		{1, "\n…and 1 more comments, not listed here; see them all on GitHub."},
		{25, "\n…and 25 more comments, not listed here; see them all on GitHub."},
	} {
		assert.Equal(t, tt.want, s.more(tt.n, "comments"), "more(%d)", tt.n)
	}
}

func TestProgressCountsThreadsOnlyWhenThereAreSeveral(t *testing.T) {
	for _, tt := range []struct {
		threads, index int
		want           string
	}{
		{1, 0, ""},
		{2, 0, "1/2"},
		{2, 1, "2/2"},
		{5, 3, "4/5"},
	} {
		s := &step{pos: Position{Comments: &CommentsState{Threads: make([]ThreadContext, tt.threads), Index: tt.index}}}
		assert.Equal(t, tt.want, s.progress(), "%d threads at %d", tt.threads, tt.index)
	}
}

func TestThePickQuestionLabelsEachCommentByItsNumberInTheList(t *testing.T) {
	d := start(t)
	d.poll(threePR())
	act := d.choose(elicitation.AddressSpecific)
	for i, c := range act.Question.Choices[:3] {
		assert.Equal(t, fmt.Sprintf("Comment %d", i+1), c.Label)
		assert.Contains(t, act.Question.Text, fmt.Sprintf("%d. ", i+1), "the list is numbered as the labels")
	}
}

func TestAnExcerptIsWhatTheWholeCommentWouldShow(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		max  int
	}{
		{"a short comment", "rename x", 100},
		{"a long comment", strings.Repeat("word ", 500), 100},
		{"white space that collapses to half", strings.Repeat("a  ", 400), 100},
		{"line breaks that collapse", strings.Repeat("ab\n\n", 300), 160},
		{"two-byte letters", strings.Repeat("é", 600), 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := text.ClipBytes(text.OneLine(tt.body), tt.max)
			assert.Equal(t, want, excerpt(Untrusted(tt.body), tt.max))
		})
	}
}

func TestAQuotedThreadSaysWhereTheCommentIs(t *testing.T) {
	for _, tt := range []struct {
		name   string
		thread ThreadContext
		want   string
	}{
		{"a comment on the pull request", ThreadContext{Reviewer: "bob"}, "bob on the PR: x"},
		{"a comment on a line", ThreadContext{Reviewer: "bob", Path: "a.go", Line: 3}, "bob on a.go:3: x"},
		{"a comment on the whole file", ThreadContext{Reviewer: "bob", Path: "a.go", Line: 0}, "bob on a.go: x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, quotedThread(tt.thread, "x", maxExcerpt))
		})
	}
}
