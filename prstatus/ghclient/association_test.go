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

// The pull request's own author association comes back from GitHub as the fake models it (a
// person is a MEMBER unless set otherwise, a bot NONE) and reaches the facts: a team deployment's
// worker works only for authors with write access.
func TestTheSnapshotCarriesThePullRequestAuthorsOwnAssociation(t *testing.T) {
	tests := []struct {
		name   string
		author githubfake.Actor
		assoc  string // WithAssociation for the author; "" leaves the fake's default
		fork   bool
		want   prstatus.Association
		write  bool
	}{
		{"a member by default", githubfake.User("dev"), "", false, prstatus.AssocMember, true},
		{"a collaborator", githubfake.User("carol"), "COLLABORATOR", false, prstatus.AssocCollaborator, true},
		{"the owner", githubfake.User("acme"), "OWNER", false, prstatus.AssocOwner, true},
		{"a contributor from a fork", githubfake.User("forker"), "CONTRIBUTOR", true, prstatus.AssocContributor, false},
		{"a first-time contributor from a fork", githubfake.User("newbie"), "FIRST_TIME_CONTRIBUTOR", true, prstatus.AssocFirstTimeContributor, false},
		{"someone with none", githubfake.User("outsider"), "NONE", true, prstatus.AssocNone, false},
		{"a GitHub App", githubfake.Bot("renovate"), "", false, prstatus.AssocNone, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []githubfake.Option{githubfake.WithViewer("dev"), githubfake.WithToken(fakeToken)}
			if tt.assoc != "" {
				opts = append(opts, githubfake.WithAssociation(tt.author.Login, tt.assoc))
			}
			f := githubfake.MustNew(opts...)
			base := f.Start()
			t.Cleanup(f.Close)
			c, err := ghclient.New(ghclient.Config{RESTURL: base, Token: ghclient.NewToken(fakeToken), Version: "test", Now: f.Now})
			require.NoError(t, err)
			events := []githubfake.Event{githubfake.OpenPR{Title: "t", Author: tt.author}}
			if tt.fork {
				events = append(events, githubfake.FromFork{})
			}
			require.NoError(t, f.Apply(githubfake.Ref(ref), events...))

			s, err := c.Snapshot(t.Context(), ref)
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.AuthorAssociation)
			facts := prstatus.Derive(s, f.Now())
			assert.Equal(t, tt.want, facts.AuthorAssociation)
			assert.Equal(t, tt.write, facts.AuthorAssociation.CanWrite())
		})
	}
}
