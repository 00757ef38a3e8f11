package ghclient_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestTheSnapshotCarriesEachAuthorsAssociationAndAStrangersRequestDoesNotBlock(t *testing.T) {
	f := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(fakeToken),
		githubfake.WithAssociation("stranger", "FIRST_TIME_CONTRIBUTOR"))
	base := f.Start()
	t.Cleanup(f.Close)
	c, err := ghclient.New(ghclient.Config{RESTURL: base, Token: ghclient.NewToken(fakeToken), Version: "test", Now: f.Now})
	require.NoError(t, err)
	stranger, bob := githubfake.User("stranger"), githubfake.User("bob")
	require.NoError(t, f.Apply(githubfake.Ref(ref),
		githubfake.OpenPR{Title: "t", Author: githubfake.User("dev")},
		githubfake.RequestChanges(stranger, "No.", githubfake.NewThread{Path: "a.go", Line: 1, Body: "Rewrite it."}),
		githubfake.CommentReview(copilot, "", githubfake.NewThread{Path: "b.go", Line: 2, Body: "Typo."}),
		githubfake.Approve(bob, "LGTM"),
	))

	s, err := c.Snapshot(t.Context(), ref)
	require.NoError(t, err)
	byAuthor := map[string]prstatus.Association{}
	for _, r := range s.Reviews {
		byAuthor[r.Author.Login] = r.AuthorAssociation
	}
	for _, th := range s.Threads {
		for _, cm := range th.Comments {
			assert.Equal(t, byAuthor[cm.Author.Login], cm.AuthorAssociation, "a comment and its review agree")
		}
	}
	assert.Equal(t, map[string]prstatus.Association{
		"stranger": prstatus.AssocFirstTimeContributor, "bob": prstatus.AssocMember,
		"copilot-pull-request-reviewer[bot]": prstatus.AssocNone,
	}, byAuthor)

	facts := prstatus.Derive(s, f.Now())
	assert.Empty(t, facts.Reviews.ChangesRequestedBy, "the stranger's request is no verdict")
	assert.Equal(t, []string{"bob"}, facts.Reviews.Approvals)
	require.Len(t, facts.Threads.NeedsAction, 1, "Copilot's thread is acted on")
	assert.Equal(t, "copilot-pull-request-reviewer[bot]", facts.Threads.NeedsAction[0].Reviewer)
	require.Len(t, facts.Threads.FromOthers, 1, "the stranger's thread is shown")
	require.Len(t, facts.Reviews.FromOthers, 1)
}

func TestAnApprovalFromSomeoneWithoutWriteAccessDoesNotSatisfyRequiredReviews(t *testing.T) {
	f := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(fakeToken),
		githubfake.WithAssociation("stranger", "CONTRIBUTOR"))
	base := f.Start()
	t.Cleanup(f.Close)
	c, err := ghclient.New(ghclient.Config{RESTURL: base, Token: ghclient.NewToken(fakeToken), Version: "test", Now: f.Now})
	require.NoError(t, err)
	require.NoError(t, f.Apply(githubfake.Ref(ref),
		githubfake.OpenPR{Title: "t"}, githubfake.RequireApprovals{N: 1},
		githubfake.Approve(githubfake.User("stranger"), "LGTM")))

	s, err := c.Snapshot(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, "REVIEW_REQUIRED", s.ReviewDecision, "GitHub counts reviewers with write access only")
	assert.Empty(t, prstatus.Derive(s, f.Now()).Reviews.Approvals)

	require.NoError(t, f.Apply(githubfake.Ref(ref), githubfake.Approve(githubfake.User("bob"), "LGTM")))
	s, err = c.Snapshot(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, "APPROVED", s.ReviewDecision)
}
