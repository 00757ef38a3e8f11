package ghclient_test

import (
	"cmp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/ghschema"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// openMany opens pull requests in two repositories: the viewer's (one a draft, one closed),
// dependabot's, one assigned to the viewer and one awaiting the viewer's review.
func openMany(t *testing.T, e *fakeEnv) {
	t.Helper()
	dev := githubfake.User("dev")
	for _, pr := range []struct {
		ref    githubfake.Ref
		events []githubfake.Event
	}{
		{githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 1}, []githubfake.Event{githubfake.OpenPR{Title: "mine"}}},
		{githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 2}, []githubfake.Event{githubfake.OpenPR{Title: "my draft", Draft: true}}},
		{githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 3}, []githubfake.Event{githubfake.OpenPR{Title: "closed"}, githubfake.Closed{}}},
		{githubfake.Ref{Owner: "acme", Repo: "gears", Number: 4}, []githubfake.Event{githubfake.OpenPR{Title: "other repo"}}},
		{githubfake.Ref{Owner: "acme", Repo: "gears", Number: 5}, []githubfake.Event{githubfake.OpenPR{Author: alice, Title: "assigned"}, githubfake.Assign{Assignees: []githubfake.Actor{dev}}}},
		{githubfake.Ref{Owner: "acme", Repo: "gears", Number: 6}, []githubfake.Event{githubfake.OpenPR{Author: alice, Title: "review me"}, githubfake.ReviewRequested{Reviewers: []githubfake.Actor{dev}}}},
		{githubfake.Ref{Owner: "acme", Repo: "gears", Number: 8}, []githubfake.Event{githubfake.OpenPR{Author: alice, Title: "not mine"}}},
	} {
		require.NoError(t, e.f.Apply(pr.ref, pr.events...))
	}
}

func TestOpenPRsIsOneRequestOfOnePointForEveryKindOfPR(t *testing.T) {
	tests := []struct {
		name string
		q    ghclient.OpenPRsQuery
		want map[string]string // PR → why found
	}{
		{
			name: "the viewer's own open pull requests, drafts included",
			want: map[string]string{"acme/widgets#1": ghclient.FoundAuthored, "acme/widgets#2": ghclient.FoundAuthored, "acme/gears#4": ghclient.FoundAuthored},
		},
		{
			name: "with those assigned and awaiting the viewer's review",
			q:    ghclient.OpenPRsQuery{Assigned: true, ReviewRequested: true},
			want: map[string]string{
				"acme/widgets#1": ghclient.FoundAuthored, "acme/widgets#2": ghclient.FoundAuthored, "acme/gears#4": ghclient.FoundAuthored,
				"acme/gears#5": ghclient.FoundAssigned, "acme/gears#6": ghclient.FoundReviewRequested,
			},
		},
		{
			name: "another user's, by login (a GitHub App's token names the user)",
			q:    ghclient.OpenPRsQuery{For: "alice"},
			want: map[string]string{"acme/gears#5": ghclient.FoundAuthored, "acme/gears#6": ghclient.FoundAuthored, "acme/gears#8": ghclient.FoundAuthored},
		},
		{
			name: "with those awaiting review only",
			q:    ghclient.OpenPRsQuery{ReviewRequested: true},
			want: map[string]string{
				"acme/widgets#1": ghclient.FoundAuthored, "acme/widgets#2": ghclient.FoundAuthored, "acme/gears#4": ghclient.FoundAuthored,
				"acme/gears#6": ghclient.FoundReviewRequested,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			openMany(t, e)
			e.rec.reset()
			got, err := e.c.OpenPRs(t.Context(), tt.q)
			require.NoError(t, err)
			docs := e.rec.documents()
			require.Len(t, docs, 1, "one request whatever is asked")
			require.NoError(t, ghschema.Validate(docs[0].Query, docs[0].Variables))
			assert.Equal(t, 1, got.RateLimit.Cost, "GitHub's formula: at most three search pages = 1 point")
			assert.Equal(t, cmp.Or(tt.q.For, "dev"), got.Viewer)
			found := map[string]string{}
			for _, pr := range got.PRs {
				found[pr.Ref.String()] = pr.Found
			}
			assert.Equal(t, tt.want, found)
			assert.False(t, got.Truncated)
		})
	}
}

func TestOpenPRsRefusesALoginThatIsNotOneAndSendsNothing(t *testing.T) {
	for _, login := range []string{"alice is:closed", "al:ice", "-alice", "a--b", "alice\n", strings.Repeat("a", 40)} {
		e := newFakeEnv(t)
		_, err := e.c.OpenPRs(t.Context(), ghclient.OpenPRsQuery{For: login})
		require.Error(t, err, "%q", login)
		assert.Contains(t, err.Error(), "not a GitHub login")
		assert.Empty(t, e.rec.documents(), "nothing sent for %q", login)
	}
}

func TestOpenPRsCarriesTitleDraftAndAuthor(t *testing.T) {
	e := newFakeEnv(t)
	require.NoError(t, e.f.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: 2}, githubfake.OpenPR{Title: "my draft", Draft: true}))
	got, err := e.c.OpenPRs(t.Context(), ghclient.OpenPRsQuery{})
	require.NoError(t, err)
	require.Len(t, got.PRs, 1)
	pr := got.PRs[0]
	assert.Equal(t, prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 2}, pr.Ref)
	assert.Equal(t, "my draft", pr.Title)
	assert.True(t, pr.IsDraft)
	assert.Equal(t, "dev", pr.Author.Login)
	assert.Equal(t, "https://github.com/acme/widgets/pull/2", pr.URL)
}

// Whose repository a pull request's head is in: the repository's owner, the author's own fork,
// or a fork someone else owns.
func TestOpenPRsReadsTheHeadRepositorysOwner(t *testing.T) {
	e := newFakeEnv(t)
	for n, events := range map[int][]githubfake.Event{
		1: {githubfake.OpenPR{Title: "a branch"}},
		2: {githubfake.OpenPR{Title: "my fork"}, githubfake.FromFork{}},
		3: {githubfake.OpenPR{Title: "alice's fork"}, githubfake.FromFork{Owner: "alice"}},
	} {
		require.NoError(t, e.f.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, events...))
	}
	got, err := e.c.OpenPRs(t.Context(), ghclient.OpenPRsQuery{})
	require.NoError(t, err)
	owners := map[int]string{}
	for _, pr := range got.PRs {
		owners[pr.Ref.Number] = pr.HeadOwner
		assert.Equal(t, pr.Ref.Number != 1, pr.IsCrossRepository, "#%d", pr.Ref.Number)
	}
	assert.Equal(t, map[int]string{1: "acme", 2: "dev", 3: "alice"}, owners)
}

func TestOpenPRsSaysWhenASearchHasMoreThanOnePage(t *testing.T) {
	e := newFakeEnv(t)
	for n := 1; n <= ghclient.SearchPage+1; n++ {
		require.NoError(t, e.f.Apply(githubfake.Ref{Owner: "acme", Repo: "widgets", Number: n}, githubfake.OpenPR{Title: "t"}))
	}
	got, err := e.c.OpenPRs(t.Context(), ghclient.OpenPRsQuery{})
	require.NoError(t, err)
	assert.Len(t, got.PRs, ghclient.SearchPage)
	assert.True(t, got.Truncated)
}
