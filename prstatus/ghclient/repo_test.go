package ghclient_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/ghschema"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

var widgets = dispatch.RepoRef{Owner: "acme", Name: "widgets"}

// The dispatcher's documents, each validated against GitHub's schema, and what they read.
func TestRepoReadsAreValidAndComplete(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, githubfake.OpenPR{Title: "t", Author: githubfake.Bot("renovate"), Draft: true},
		githubfake.ChecksQueued{Jobs: []string{"build"}}, githubfake.CheckCompleted{Name: "build", Conclusion: githubfake.ConclusionFailure},
		githubfake.AddLabels{Labels: []string{"wip"}}, githubfake.Assign{Assignees: []githubfake.Actor{alice}},
		githubfake.Comment{Author: alice, Body: "Fix plan for abc1234"},
		githubfake.RequestChanges(alice, "no", githubfake.Threads(101, "a.go")...),
		githubfake.ThreadReply{Thread: 100, By: githubfake.User("dev"), Body: "ok"})
	require.NoError(t, e.f.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 9}, githubfake.OpenIssue{Title: "bug", Labels: []string{"bug"}}))
	require.NoError(t, e.f.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 10}, githubfake.OpenIssue{Title: "other"}))
	e.rec.reset()

	var cost ghclient.RepoCost
	s, err := e.c.RepoSnapshot(t.Context(), widgets, &cost)
	require.NoError(t, err)
	require.Len(t, s.PRs, 1)
	pr := s.PRs[0]
	assert.Equal(t, 7, pr.Number())
	assert.Equal(t, "renovate[bot]", pr.Author.Login, "a bot in REST's form")
	assert.True(t, pr.IsDraft)
	assert.Equal(t, []string{"wip"}, pr.Labels)
	assert.Equal(t, []string{"alice"}, pr.Assignees)
	require.Len(t, pr.LabelEvents, 1)
	assert.Equal(t, "wip", pr.LabelEvents[0].Label)
	require.Len(t, pr.Comments, 1)
	assert.Equal(t, "Fix plan for abc1234", pr.Comments[0].Body)
	assert.Equal(t, prstatus.AssocMember, pr.Comments[0].AuthorAssociation, "a conversation comment carries its author's association")
	assert.Equal(t, prstatus.AssocMember, pr.LatestOpinionatedReviews[0].AuthorAssociation)
	assert.Equal(t, "FAILURE", pr.RollupState)
	require.Len(t, pr.Checks, 1)
	assert.Equal(t, "FAILURE", pr.Checks[0].Conclusion)
	assert.False(t, pr.ChecksCut, "every check was read")
	assert.Len(t, pr.Threads, 101, "threads past the first 100 are read")
	require.Len(t, pr.LatestOpinionatedReviews, 1)
	assert.Equal(t, prstatus.ReviewChangesRequested, pr.LatestOpinionatedReviews[0].State)
	assert.Equal(t, "dev", s.Viewer)
	assert.Equal(t, 2, cost.Requests, "the page of pull requests and one page of threads")

	require.NoError(t, e.c.ThreadReplies(t.Context(), s, []int{7}, &cost))
	assert.True(t, s.PRs[0].ThreadRepliesLoaded)
	assert.Equal(t, 1, s.PRs[0].Threads[0].TotalComments)
	assert.Equal(t, 2, s.PRs[0].Threads[100].TotalComments)

	require.NoError(t, e.c.UnassignedIssues(t.Context(), s, 2, nil, &cost))
	assert.True(t, s.IssuesLoaded)
	var numbers []int
	for _, is := range s.Issues {
		numbers = append(numbers, is.Number)
	}
	assert.Equal(t, []int{9, 9, 10}, numbers, "the bugs, then any issue")
	assert.Equal(t, []string{"bug"}, s.Issues[0].Labels)

	docs := e.rec.documents()
	assert.Equal(t, len(docs), cost.Requests)
	assert.Equal(t, 6, cost.Requests, "2 repository pages, 2 thread reply batches (101 threads), 2 issue passes")
	for _, d := range docs {
		require.NoError(t, ghschema.Validate(d.Query, d.Variables), "document:\n%s\nvariables: %v", d.Query, d.Variables)
	}
}

func TestRepoSnapshotOfAMissingRepository(t *testing.T) {
	e := newFakeEnv(t)
	var cost ghclient.RepoCost
	_, err := e.c.RepoSnapshot(t.Context(), dispatch.RepoRef{Owner: "nobody", Name: "nothing"}, &cost)
	assert.ErrorIs(t, err, ghclient.ErrNotFound)
}

// Past the first page of checks the repository read says so: the rollup's state then stands in
// for the runs it did not read.
func TestRepoSnapshotSaysWhenTheChecksWereCut(t *testing.T) {
	e := newFakeEnv(t)
	jobs := make([]string, 101)
	for i := range jobs {
		jobs[i] = fmt.Sprintf("job-%03d", i)
	}
	e.apply(t, githubfake.OpenPR{Title: "t"}, githubfake.ChecksQueued{Jobs: jobs})
	var cost ghclient.RepoCost
	s, err := e.c.RepoSnapshot(t.Context(), widgets, &cost)
	require.NoError(t, err)
	require.Len(t, s.PRs, 1)
	assert.Len(t, s.PRs[0].Checks, 100)
	assert.True(t, s.PRs[0].ChecksCut)
	assert.Equal(t, "PENDING", s.PRs[0].RollupState)
}
