package ghclient_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/ghschema"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// The dispatcher's trust reads: who wrote a pull request, an issue, a thread's first comment;
// the older comments; the lock's label events. Each document is valid against GitHub's schema.
func TestRepoTrustReadsAreValidAndComplete(t *testing.T) {
	e := newFakeEnv(t)
	e.f.SetAssociation("outsider", "NONE")
	outsider := githubfake.User("outsider")
	e.apply(t, githubfake.OpenPR{Title: "t", Author: outsider}, githubfake.FromFork{},
		githubfake.CommentReview(outsider, "", githubfake.NewThread{Path: "a.go", Line: 1, Body: "x"}),
		githubfake.AddLabels{Labels: []string{"wip"}})
	for range 150 {
		e.apply(t, githubfake.Comment{Author: alice, Body: "noise"})
	}
	require.NoError(t, e.f.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 9}, githubfake.OpenIssue{Author: outsider, Title: "bug", Labels: []string{"bug"}}))
	e.rec.reset()

	var cost ghclient.RepoCost
	s, err := e.c.RepoSnapshot(t.Context(), widgets, &cost)
	require.NoError(t, err)
	pr := s.PRs[0]
	assert.Equal(t, prstatus.AssocNone, pr.AuthorAssociation)
	assert.True(t, pr.IsCrossRepository)
	assert.Len(t, pr.Comments, 100)
	assert.NotEmpty(t, pr.CommentsBefore, "more comments than the first page")
	require.Len(t, pr.LabelEvents, 1)
	assert.Equal(t, "dev", pr.LabelEvents[0].Actor)
	assert.NotEmpty(t, pr.LabelEvents[0].ID)

	require.NoError(t, e.c.OlderComments(t.Context(), s, []int{7}, &cost))
	assert.Len(t, s.PRs[0].Comments, 150)
	assert.Empty(t, s.PRs[0].CommentsBefore)
	assert.False(t, s.PRs[0].CommentsCut)

	require.NoError(t, e.c.ThreadReplies(t.Context(), s, []int{7}, &cost))
	require.Len(t, s.PRs[0].Threads[0].Comments, 1)
	assert.Equal(t, "outsider", s.PRs[0].Threads[0].Comments[0].Author.Login)
	assert.Equal(t, prstatus.AssocNone, s.PRs[0].Threads[0].Comments[0].AuthorAssociation)

	require.NoError(t, e.c.UnassignedIssues(t.Context(), s, 1, nil, &cost))
	require.Len(t, s.Issues, 1)
	assert.Equal(t, "outsider", s.Issues[0].Author.Login)
	assert.Equal(t, prstatus.AssocNone, s.Issues[0].AuthorAssociation)
	keepNone := func(dispatch.Issue) bool { return false }
	require.NoError(t, e.c.UnassignedIssues(t.Context(), s, 1, keepNone, &cost))
	assert.Empty(t, s.Issues, "the filter leaves out what the dispatcher would not take")

	e.apply(t, githubfake.RemoveLabel{Label: "wip"}, githubfake.AddLabels{Labels: []string{"wip"}, By: alice})
	events, err := e.c.LockEvents(t.Context(), s, []int{7}, &cost)
	require.NoError(t, err)
	require.Len(t, events[7], 3)
	assert.False(t, events[7][0].Removed)
	assert.True(t, events[7][1].Removed)
	assert.Equal(t, "alice", events[7][2].Actor)

	docs := e.rec.documents()
	assert.Equal(t, len(docs), cost.Requests)
	for _, d := range docs {
		require.NoError(t, ghschema.Validate(d.Query, d.Variables), "document:\n%s\nvariables: %v", d.Query, d.Variables)
	}
}
