package githubfake_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestExecutor(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	threadID := mustThread(t, f, 0).ID

	tests := []struct {
		name     string
		query    string
		vars     map[string]any
		wantData string   // JSON; "" skips the check
		wantErrs []string // substrings, one per error, in order
	}{
		{
			name:     "aliases",
			query:    `{ a: viewer { l: login } b: viewer { login } }`,
			wantData: `{"a":{"l":"dev"},"b":{"login":"dev"}}`,
		},
		{
			name:     "named fragment and __typename",
			query:    `query { viewer { ...Who } } fragment Who on User { __typename login }`,
			wantData: `{"viewer":{"__typename":"User","login":"dev"}}`,
		},
		{
			name:     "inline fragment through node(id:)",
			query:    `query($id: ID!) { node(id: $id) { __typename id ... on PullRequestReviewThread { path line } ... on PullRequest { number } } }`,
			vars:     map[string]any{"id": threadID},
			wantData: `{"node":{"__typename":"PullRequestReviewThread","id":"` + threadID + `","path":"widget.go","line":10}}`,
		},
		{
			name:     "variables with a default",
			query:    `query($owner: String = "octo", $n: Int = 7) { repository(owner: $owner, name: "widgets") { pullRequest(number: $n) { number title } } }`,
			wantData: `{"repository":{"pullRequest":{"number":7,"title":"Add widgets"}}}`,
		},
		{
			name:     "skip and include",
			query:    `query($yes: Boolean!) { viewer { login @include(if: $yes) id @skip(if: $yes) } }`,
			vars:     map[string]any{"yes": true},
			wantData: `{"viewer":{"login":"dev"}}`,
		},
		{
			name:     "fields merged across fragments",
			query:    `{ viewer { login ... on User { login isViewer } } }`,
			wantData: `{"viewer":{"login":"dev","isViewer":true}}`,
		},
		{
			name:     "totalCount and edges with cursors",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { reviewThreads(first: 1) { totalCount edges { cursor node { path } } } } } }`,
			wantData: `{"repository":{"pullRequest":{"reviewThreads":{"totalCount":3,"edges":[{"cursor":"Y3Vyc29yOnYyOjE=","node":{"path":"widget.go"}}]}}}}`,
		},
		{
			name:     "connection without first or last",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { title reviewThreads { totalCount } } } }`,
			wantData: `{"repository":{"pullRequest":null}}`,
			wantErrs: []string{"You must provide a `first` or `last` value to properly paginate the `reviewThreads` connection."},
		},
		{
			name:     "first above 100",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { reviews(first: 101) { totalCount } } } }`,
			wantData: `{"repository":{"pullRequest":{"reviews":null}}}`,
			wantErrs: []string{"Requesting 101 records on the `reviews` connection exceeds the `first` limit of 100 records."},
		},
		{
			name:     "last below 1",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { reviews(last: 0) { totalCount } } } }`,
			wantErrs: []string{"`last` on the `reviews` connection cannot be less than one."},
		},
		{
			name:     "search: the viewer's open pull requests",
			query:    `{ search(type: ISSUE, query: "is:pr is:open author:@me archived:false", first: 10) { issueCount nodes { ... on PullRequest { number } } } }`,
			wantData: `{"search":{"issueCount":1,"nodes":[{"number":7}]}}`,
		},
		{
			name:     "search: a term the fake does not model is refused",
			query:    `{ search(type: ISSUE, query: "is:pr label:bug", first: 10) { issueCount } }`,
			wantErrs: []string{`search qualifier "label:bug" is not modelled`},
		},
		{
			name:     "first and last together",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { reviews(first: 1, last: 1) { totalCount } } } }`,
			wantErrs: []string{"Passing both `first` and `last`"},
		},
		{
			name:     "bad cursor",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { reviews(first: 1, after: "nope") { totalCount } } } }`,
			wantErrs: []string{"does not appear to be a valid cursor"},
		},
		{
			name:     "valid but unmodelled nullable field",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { number isReadByViewer } } }`,
			wantData: `{"repository":{"pullRequest":{"number":7,"isReadByViewer":null}}}`,
			wantErrs: []string{"githubfake: PullRequest.isReadByViewer is not implemented"},
		},
		{
			name:     "valid but unmodelled non-null field nulls its parent",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { number revertUrl } } }`,
			wantData: `{"repository":{"pullRequest":null}}`,
			wantErrs: []string{"githubfake: PullRequest.revertUrl is not implemented"},
		},
		{
			name:     "missing pull request",
			query:    `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 99) { number } } }`,
			wantData: `{"repository":{"pullRequest":null}}`,
			wantErrs: []string{"Could not resolve to a PullRequest with the number of 99."},
		},
		{
			name:     "missing repository",
			query:    `{ repository(owner: "octo", name: "nope") { id } }`,
			wantData: `{"repository":null}`,
			wantErrs: []string{"Could not resolve to a Repository with the name 'octo/nope'."},
		},
		{
			name:     "unknown node id",
			query:    `{ node(id: "PRRT_nope") { id } }`,
			wantData: `{"node":null}`,
			wantErrs: []string{"Could not resolve to a node with the global id of 'PRRT_nope'"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := doGraphQL(t, f, tt.query, tt.vars)
			require.Equal(t, 200, resp.status)
			if tt.wantData != "" {
				assert.JSONEq(t, tt.wantData, string(resp.Data))
			}
			require.Len(t, resp.Errors, len(tt.wantErrs), "%v", resp.messages())
			for i, want := range tt.wantErrs {
				assert.Contains(t, resp.Errors[i].Message, want)
				assert.NotEmpty(t, resp.Errors[i].Locations, "errors carry locations")
				assert.NotEmpty(t, resp.Errors[i].Path, "execution errors carry a path")
			}
		})
	}
}

func TestNotFoundCarriesGitHubsType(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	resp := doGraphQL(t, f, `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 99) { number } } }`, nil)
	require.Len(t, resp.Errors, 1)
	assert.Equal(t, "NOT_FOUND", resp.Errors[0].Type)
	assert.Equal(t, []any{"repository", "pullRequest"}, resp.Errors[0].Path)
}

func TestSchemaRejection(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	tests := []struct {
		name  string
		query string
		vars  map[string]any
		want  string
	}{
		{"typo", `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) { numbr } } }`, nil,
			`Cannot query field "numbr" on type "PullRequest". Did you mean "number"?`},
		{"wrong argument", `{ repository(owner: "octo", name: "widgets") { pullRequest(num: 7) { number } } }`, nil,
			`Unknown argument "num" on field "Repository.pullRequest".`},
		{"missing variable", `query($n: Int!) { repository(owner: "o", name: "r") { pullRequest(number: $n) { id } } }`, map[string]any{},
			`Variable $n must be defined`},
		{"syntax", `{ viewer { login }`, nil, `Expected Name, found <EOF>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := doGraphQL(t, f, tt.query, tt.vars)
			assert.Equal(t, 200, resp.status, "GitHub answers schema errors with HTTP 200")
			assert.Equal(t, "", string(resp.Data), "no data at all")
			require.NotEmpty(t, resp.Errors)
			assert.Contains(t, resp.Errors[0].Message, tt.want)
		})
	}
	assert.Len(t, f.Requests(), 4, "rejected documents are still recorded")
	assert.Equal(t, 3, f.GraphQLQueries(), "the unparseable one has no operation type")
}

func TestPaginationForwardsAndBackwards(t *testing.T) {
	f := newFake(t)
	require.NoError(t, f.Apply(ref,
		githubfake.OpenPR{Title: "Big", Commits: githubfake.Commits(250, "Step")},
		githubfake.CommentReview(alice, "", githubfake.Threads(120, "big.go")...),
		githubfake.ChecksQueued{Jobs: githubfake.JobNames(130, "job")},
	))
	type page struct {
		Repository struct {
			PullRequest struct {
				Commits struct {
					TotalCount int
					PageInfo   struct {
						HasNextPage, HasPreviousPage bool
						StartCursor, EndCursor       *string
					}
					Nodes []struct {
						Commit struct{ MessageHeadline string }
					}
				}
			}
		}
	}
	fetch := func(query string, vars map[string]any) page {
		resp := doGraphQL(t, f, query, vars)
		require.Empty(t, resp.Errors)
		var p page
		resp.decode(t, &p)
		return p
	}

	forwards := `query($after: String) { repository(owner: "octo", name: "widgets") { pullRequest(number: 7) {
  commits(first: 100, after: $after) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { commit { messageHeadline } } } } } }`
	var headlines []string
	vars := map[string]any{"after": nil}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5)
		p := fetch(forwards, vars).Repository.PullRequest.Commits
		assert.Equal(t, 250, p.TotalCount)
		assert.Equal(t, pages > 0, p.PageInfo.HasPreviousPage)
		for _, n := range p.Nodes {
			headlines = append(headlines, n.Commit.MessageHeadline)
		}
		if !p.PageInfo.HasNextPage {
			break
		}
		vars = map[string]any{"after": *p.PageInfo.EndCursor}
	}
	require.Len(t, headlines, 250)
	assert.Equal(t, "Step 1", headlines[0])
	assert.Equal(t, "Step 250", headlines[249])

	backwards := `query($before: String) { repository(owner: "octo", name: "widgets") { pullRequest(number: 7) {
  commits(last: 100, before: $before) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } nodes { commit { messageHeadline } } } } } }`
	p := fetch(backwards, map[string]any{"before": nil}).Repository.PullRequest.Commits
	require.Len(t, p.Nodes, 100)
	assert.Equal(t, "Step 151", p.Nodes[0].Commit.MessageHeadline)
	assert.True(t, p.PageInfo.HasPreviousPage)
	assert.False(t, p.PageInfo.HasNextPage)
	p = fetch(backwards, map[string]any{"before": *p.PageInfo.StartCursor}).Repository.PullRequest.Commits
	assert.Equal(t, "Step 51", p.Nodes[0].Commit.MessageHeadline)
	assert.Equal(t, "Step 150", p.Nodes[99].Commit.MessageHeadline)
	p = fetch(backwards, map[string]any{"before": *p.PageInfo.StartCursor}).Repository.PullRequest.Commits
	require.Len(t, p.Nodes, 50)
	assert.False(t, p.PageInfo.HasPreviousPage)

	counts := doGraphQL(t, f, `{ repository(owner: "octo", name: "widgets") { pullRequest(number: 7) {
  reviewThreads(first: 100) { totalCount pageInfo { hasNextPage } }
  statusCheckRollup { contexts(first: 100) { totalCount checkRunCount pageInfo { hasNextPage } } } } } }`, nil)
	require.Empty(t, counts.Errors)
	assert.JSONEq(t, `{"repository":{"pullRequest":{
  "reviewThreads":{"totalCount":120,"pageInfo":{"hasNextPage":true}},
  "statusCheckRollup":{"contexts":{"totalCount":130,"checkRunCount":130,"pageInfo":{"hasNextPage":true}}}}}}`, string(counts.Data))
}

func TestRateLimitGoesDown(t *testing.T) {
	f := newFake(t, githubfake.WithRateLimit(3))
	q := `{ rateLimit { cost remaining used limit } }`
	for _, want := range []string{
		`{"rateLimit":{"cost":1,"remaining":2,"used":1,"limit":3}}`,
		`{"rateLimit":{"cost":1,"remaining":1,"used":2,"limit":3}}`,
		`{"rateLimit":{"cost":1,"remaining":0,"used":3,"limit":3}}`,
	} {
		resp := doGraphQL(t, f, q, nil)
		assert.JSONEq(t, want, string(resp.Data))
	}
	resp := doGraphQL(t, f, q, nil)
	require.Len(t, resp.Errors, 1)
	assert.Equal(t, "RATE_LIMITED", resp.Errors[0].Type)
	assert.Equal(t, "0", resp.header.Get("X-Ratelimit-Remaining"))

	f.Advance(61 * 60 * 1e9) // an hour later the window resets
	resp = doGraphQL(t, f, q, nil)
	assert.JSONEq(t, `{"rateLimit":{"cost":1,"remaining":2,"used":1,"limit":3}}`, string(resp.Data))
}

func mustThread(t *testing.T, f *githubfake.Fake, i int) githubfake.ThreadInfo {
	t.Helper()
	th, err := f.PR(ref).Thread(i)
	require.NoError(t, err)
	return th
}
