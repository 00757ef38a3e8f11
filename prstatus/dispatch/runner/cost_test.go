package runner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// TestCostOfFiftyOpenPullRequests measures a run over 50 open pull requests against the fake,
// which computes each request's points with GitHub's published formula. Every pull request is
// reviewed by a bot and carries two unresolved threads, one without a reply, so that rule 9 needs
// the threads' replies too: the costliest read. docs/dispatch.md allows at most 4 GraphQL requests.
func TestCostOfFiftyOpenPullRequests(t *testing.T) {
	w := newWorld(t)
	for n := 1; n <= 50; n++ {
		w.ready(n)
		w.on(n, githubfake.CommentReview(alice, "",
			githubfake.NewThread{Path: "a.go", Line: 1, Body: "Why?"}, githubfake.NewThread{Path: "b.go", Line: 2, Body: "And this?"}),
			githubfake.ThreadReply{Thread: 0, By: worker, Body: "Because."})
	}
	w.f.ResetRecording()
	res := w.mustRun(false)

	queries := w.f.GraphQLQueries()
	t.Logf("50 open pull requests: %d GraphQL requests, %d points, %d REST writes", res.GitHub.Requests, res.GitHub.Points, res.GitHub.Writes)
	assert.Equal(t, queries, res.GitHub.Requests, "the run counts what the fake saw")
	assert.LessOrEqual(t, queries, 4)
	assert.Equal(t, 3, queries, "one page of pull requests, one read of 100 threads' replies, one re-read of the lock")
	assert.Equal(t, 6, res.GitHub.Points, "4 for the page (1 + 8 connections x 50), 1 for the threads, 1 for the lock")
	assert.Equal(t, []string{"SPAWN:address-feedback:1:" + w.head(1)}, lines(res))
	assert.Equal(t, 1, res.GitHub.Writes)
	assert.Len(t, res.PRs, 50)

	// Without threads to read, one request.
	quiet := newWorld(t)
	for n := 1; n <= 50; n++ {
		quiet.ready(n)
	}
	quiet.f.ResetRecording()
	res = quiet.mustRun(true)
	assert.Equal(t, 1, quiet.f.GraphQLQueries())
	assert.Equal(t, 4, res.GitHub.Points)
	assert.Len(t, res.Handoffs, 50)

	// The 51st pull request needs a second page.
	quiet.ready(51)
	quiet.f.ResetRecording()
	res = quiet.mustRun(true)
	assert.Equal(t, 2, quiet.f.GraphQLQueries())
	assert.Equal(t, 8, res.GitHub.Points)
	assert.Len(t, res.PRs, 51)
}

// TestCostOfANewIssue measures rule 11's read: one request when an unassigned bug is found.
func TestCostOfANewIssue(t *testing.T) {
	w := newWorld(t)
	for n := 1; n <= 30; n++ {
		w.on(n, githubfake.OpenIssue{Title: "x", Assignees: []githubfake.Actor{alice}})
	}
	w.on(31, githubfake.OpenIssue{Title: "y", Labels: []string{"bug"}})
	w.f.ResetRecording()
	res := w.mustRun(false)
	assert.Equal(t, []string{"SPAWN:impl:31:"}, lines(res))
	assert.Equal(t, 2, w.f.GraphQLQueries(), "the pull requests, then the bugs")
	assert.Equal(t, 5, res.GitHub.Points, "4 for the (empty) page of pull requests: points count the first: asked, 1 for the issues")
}
