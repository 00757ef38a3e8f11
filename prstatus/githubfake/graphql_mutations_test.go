package githubfake_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

const (
	resolveMutation = `mutation($input: ResolveReviewThreadInput!) { resolveReviewThread(input: $input) { clientMutationId thread { id isResolved } } }`
	replyMutation   = `mutation($input: AddPullRequestReviewThreadReplyInput!) {
  addPullRequestReviewThreadReply(input: $input) { comment { id databaseId body state author { login } url } } }`
	threadQuery = `query($id: ID!) { node(id: $id) { ... on PullRequestReviewThread { isResolved comments(last: 10) { totalCount nodes { body } } } } }`
)

type threadView struct {
	Node struct {
		IsResolved bool
		Comments   struct {
			TotalCount int
			Nodes      []struct{ Body string }
		}
	}
}

func viewThread(t *testing.T, f *githubfake.Fake, id string) threadView {
	t.Helper()
	resp := doGraphQL(t, f, threadQuery, map[string]any{"id": id})
	require.Empty(t, resp.Errors)
	var v threadView
	resp.decode(t, &v)
	return v
}

func TestResolveAndUnresolve(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	id := mustThread(t, f, 0).ID

	resp := doGraphQL(t, f, resolveMutation, map[string]any{"input": map[string]any{"threadId": id, "clientMutationId": "m1"}})
	require.Empty(t, resp.Errors)
	assert.JSONEq(t, `{"resolveReviewThread":{"clientMutationId":"m1","thread":{"id":"`+id+`","isResolved":true}}}`, string(resp.Data))
	assert.True(t, viewThread(t, f, id).Node.IsResolved)

	resp = doGraphQL(t, f, `mutation($input: UnresolveReviewThreadInput!) { unresolveReviewThread(input: $input) { thread { isResolved } } }`,
		map[string]any{"input": map[string]any{"threadId": id}})
	require.Empty(t, resp.Errors)
	assert.False(t, viewThread(t, f, id).Node.IsResolved)

	resp = doGraphQL(t, f, resolveMutation, map[string]any{"input": map[string]any{"threadId": "PRRT_missing"}})
	require.Len(t, resp.Errors, 1)
	assert.Equal(t, "NOT_FOUND", resp.Errors[0].Type)
	assert.Equal(t, 3, f.GraphQLMutations())
	assert.Equal(t, 2, f.MutationCalls("resolveReviewThread"))
}

func TestReplyToThread(t *testing.T) {
	tests := []struct {
		name        string
		pending     bool
		wantState   string
		wantVisible int
	}{
		{name: "reply is visible", pending: false, wantState: "SUBMITTED", wantVisible: 2},
		{name: "reply lands in a pending review", pending: true, wantState: "PENDING", wantVisible: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, githubfake.WithPendingReplies(tt.pending))
			openPR(t, f)
			id := mustThread(t, f, 0).ID
			resp := doGraphQL(t, f, replyMutation, map[string]any{"input": map[string]any{
				"pullRequestReviewThreadId": id, "body": "Fixed in abc123.",
			}})
			require.Empty(t, resp.Errors)
			var got struct {
				AddPullRequestReviewThreadReply struct {
					Comment struct {
						ID, Body, State, URL string
						DatabaseID           int64
						Author               struct{ Login string }
					}
				}
			}
			resp.decode(t, &got)
			c := got.AddPullRequestReviewThreadReply.Comment
			assert.Regexp(t, `^PRRC_`, c.ID)
			assert.Equal(t, tt.wantState, c.State)
			assert.Equal(t, "dev", c.Author.Login)

			v := viewThread(t, f, id)
			assert.Equal(t, tt.wantVisible, v.Node.Comments.TotalCount)
			th := mustThread(t, f, 0)
			if tt.pending {
				require.Len(t, th.Pending, 1)
				// Submitting the pending review publishes the reply.
				resp = doGraphQL(t, f, `mutation($input: SubmitPullRequestReviewInput!) { submitPullRequestReview(input: $input) { pullRequestReview { state } } }`,
					map[string]any{"input": map[string]any{"pullRequestId": f.PR(ref).ID(), "event": "COMMENT"}})
				require.Empty(t, resp.Errors)
				assert.Equal(t, 2, viewThread(t, f, id).Node.Comments.TotalCount)
			} else {
				assert.Empty(t, th.Pending)
			}
		})
	}
}

func TestRequestReviewsMutation(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	resp := doGraphQL(t, f, `{ user(login: "alice") { id } }`, nil)
	require.Empty(t, resp.Errors)
	var u struct{ User struct{ ID string } }
	resp.decode(t, &u)

	resp = doGraphQL(t, f, `mutation($input: RequestReviewsInput!) { requestReviews(input: $input) {
  pullRequest { reviewRequests(first: 10) { nodes { requestedReviewer { ... on User { login } } } } } } }`,
		map[string]any{"input": map[string]any{"pullRequestId": f.PR(ref).ID(), "userIds": []string{u.User.ID}, "union": true}})
	require.Empty(t, resp.Errors)
	assert.Contains(t, string(resp.Data), `"login":"alice"`)
	assert.Contains(t, string(resp.Data), `"login":"bob"`, "union keeps the existing requests")
}

func TestMergeMutation(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	m := `mutation($input: MergePullRequestInput!) { mergePullRequest(input: $input) { pullRequest { state merged mergedBy { login } } } }`

	resp := doGraphQL(t, f, m, map[string]any{"input": map[string]any{"pullRequestId": f.PR(ref).ID(), "expectedHeadOid": "0000000000000000000000000000000000000000"}})
	require.Len(t, resp.Errors, 1)
	assert.Equal(t, "UNPROCESSABLE", resp.Errors[0].Type)
	assert.Contains(t, resp.Errors[0].Message, "Head branch was modified")

	require.NoError(t, f.Apply(ref, githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess}))
	resp = doGraphQL(t, f, m, map[string]any{"input": map[string]any{"pullRequestId": f.PR(ref).ID(), "mergeMethod": "SQUASH", "expectedHeadOid": f.PR(ref).HeadOID()}})
	require.Empty(t, resp.Errors)
	assert.JSONEq(t, `{"mergePullRequest":{"pullRequest":{"state":"MERGED","merged":true,"mergedBy":{"login":"dev"}}}}`, string(resp.Data))

	merges := f.Merges()
	require.Len(t, merges, 2)
	assert.False(t, merges[0].Merged)
	assert.True(t, merges[1].Merged)
	assert.Equal(t, "squash", merges[1].Method)
	assert.Equal(t, githubfake.KindGraphQL, merges[1].Via)
}

func TestForbiddenMutations(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	prID := f.PR(ref).ID()
	tests := []struct {
		name, query string
		input       map[string]any
	}{
		{"closePullRequest", `mutation($input: ClosePullRequestInput!) { closePullRequest(input: $input) { clientMutationId } }`,
			map[string]any{"pullRequestId": prID}},
		{"updatePullRequest to CLOSED", `mutation($input: UpdatePullRequestInput!) { updatePullRequest(input: $input) { clientMutationId } }`,
			map[string]any{"pullRequestId": prID, "state": "CLOSED"}},
		{"deleteRef", `mutation($input: DeleteRefInput!) { deleteRef(input: $input) { clientMutationId } }`,
			map[string]any{"refId": "REF_widgets"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := doGraphQL(t, f, tt.query, map[string]any{"input": tt.input})
			require.Len(t, resp.Errors, 1)
			assert.Equal(t, "FORBIDDEN", resp.Errors[0].Type)
		})
	}
	forbidden := f.Forbidden()
	require.Len(t, forbidden, 3)
	assert.Equal(t, "close pull request", forbidden[0].What)
	assert.Equal(t, "delete branch", forbidden[2].What)
	assert.Equal(t, "OPEN", string(f.PR(ref).State()))
}

func TestUnmodelledMutation(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	resp := doGraphQL(t, f, `mutation { addStar(input: {starrableId: "R_x"}) { clientMutationId } }`, nil)
	require.Len(t, resp.Errors, 1)
	assert.Equal(t, "githubfake: Mutation.addStar is not implemented", resp.Errors[0].Message)
}
