package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func statusOf(f Facts, id string) ThreadStatus {
	for _, list := range [][]ThreadFact{f.Threads.NeedsAction, f.Threads.ReviewerReplied, f.Threads.Waiting, f.Threads.Resolved} {
		for _, t := range list {
			if t.ID == id {
				return t.Status
			}
		}
	}
	return ""
}

func TestThreadStatus(t *testing.T) {
	marker := "Fixed in c2.\n\n" + Marker{Round: "r1", Thread: "T1", Kind: ReplyReplied}.String()
	tests := []struct {
		name     string
		pr       *prBuilder
		want     ThreadStatus
		outdated bool
	}{
		{name: "a reviewer's new thread", pr: aPR().thread("T1", say{who: "bob", when: "10:00"}), want: ThreadNeedsAction},
		{name: "a bot's new thread", pr: aPR().thread("T1", say{who: "coderabbitai[bot]", when: "10:00"}), want: ThreadNeedsAction},
		{name: "two reviewers talk, nobody of ours", pr: aPR().thread("T1", say{who: "bob", when: "10:00"}, say{who: "carol", when: "10:05"}), want: ThreadNeedsAction},
		{name: "the author answered", pr: aPR().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:30"}), want: ThreadWaiting},
		{name: "the author's login in another case", pr: aPR().thread("T1", say{who: "bob", when: "10:00"}, say{who: "Dev", when: "10:30"}), want: ThreadWaiting},
		{
			name: "the viewer (not the author) answered",
			pr:   aPR().with(func(s *Snapshot) { s.Viewer = "helper" }).thread("T1", say{who: "bob", when: "10:00"}, say{who: "helper", when: "10:30"}),
			want: ThreadWaiting,
		},
		{
			name: "a marker pasted by someone else proves nothing (it could be forged)",
			pr:   aPR().with(func(s *Snapshot) { s.Viewer = "" }).thread("T1", say{who: "bob", when: "10:00"}, say{who: "mallory", when: "10:30", body: marker}),
			want: ThreadNeedsAction,
		},
		{
			name: "a marker without a thread id is no marker",
			pr:   aPR().thread("T1", say{who: "bob", when: "10:00"}, say{who: "ci-token", when: "10:30", body: "<!-- prmonitor:v1 round=r1 -->"}),
			want: ThreadNeedsAction,
		},
		{
			name: "the reviewer wrote again after our answer",
			pr:   aPR().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:30"}, say{who: "bob", when: "11:00"}),
			want: ThreadReviewerReplied,
		},
		{
			name: "someone else wrote after our answer",
			pr:   aPR().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:30"}, say{who: "carol", when: "11:00"}),
			want: ThreadReviewerReplied,
		},
		{name: "the author's own note", pr: aPR().thread("T1", say{who: "dev", when: "10:00"}), want: ThreadWaiting},
		{
			name: "resolved, whatever the last comment",
			pr:   aPR().resolvedThread("T1", say{who: "bob", when: "10:00"}),
			want: ThreadResolved,
		},
		{
			name:     "outdated is not addressed",
			pr:       aPR().rawThread(Thread{ID: "T1", Path: "old.go", IsOutdated: true}, say{who: "bob", when: "10:00"}),
			want:     ThreadNeedsAction,
			outdated: true,
		},
		{name: "a thread without comments is ignored", pr: aPR().rawThread(Thread{ID: "T1"}), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Equal(t, tt.want, statusOf(f, "T1"))
			if tt.outdated {
				require.Len(t, f.Threads.NeedsAction, 1)
				assert.True(t, f.Threads.NeedsAction[0].IsOutdated)
			}
		})
	}
}

func TestThreadFact(t *testing.T) {
	f := aPR().
		rawThread(Thread{ID: "T2", Path: "b.go", Line: 3}, say{who: "bob", when: "11:00"}, say{who: "dev", when: "11:30"}).
		rawThread(Thread{ID: "T1", Path: "a.go", Line: 7}, say{who: "coderabbitai[bot]", when: "10:00"}, say{who: "carol", when: "10:10"}).
		with(func(s *Snapshot) { s.Threads[1].TotalComments = 9 }).
		rawThread(Thread{ID: "T0", Path: "c.go"}, say{who: "erin", when: "12:00"}).
		derive()

	require.Len(t, f.Threads.NeedsAction, 2)
	assert.Equal(t, "T1", f.Threads.NeedsAction[0].ID, "oldest first")
	assert.Equal(t, "T0", f.Threads.NeedsAction[1].ID)
	t1 := f.Threads.NeedsAction[0]
	assert.Equal(t, "coderabbitai[bot]", t1.Reviewer)
	assert.True(t, t1.ReviewerIsBot)
	assert.Equal(t, "carol", t1.Last().Author.Login)
	assert.Equal(t, t1.First().DatabaseID, t1.ReplyToID)
	assert.NotZero(t, t1.ReplyToID)
	assert.Equal(t, 9, t1.TotalComments)
	assert.Len(t, t1.Comments, 2)
	assert.Equal(t, "a.go:7", t1.Where())

	require.Len(t, f.Threads.Waiting, 1)
	assert.Equal(t, "T2", f.Threads.Waiting[0].ID)
	assert.Empty(t, f.Threads.ReviewerReplied)
	assert.Empty(t, f.Threads.Resolved)
}

func TestThreadFactsDoNotAliasTheSnapshot(t *testing.T) {
	s := aPR().thread("T1", say{who: "bob", when: "10:00"}).build()
	f := Derive(s, at("12:00"))
	f.Threads.NeedsAction[0].Comments[0].Body = "changed"
	assert.Equal(t, "comment by bob", s.Threads[0].Comments[0].Body)
}
