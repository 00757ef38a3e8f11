package githubfake_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// An After fault carries the request out and then hides the answer: the work is done on the fake
// although the client saw a failure.
func TestFaultAfterPerformsTheOperation(t *testing.T) {
	tests := []struct {
		name   string
		fault  githubfake.Fault
		call   func(t *testing.T, f *githubfake.Fake) int // returns the HTTP status, 0 for a drop
		landed func(t *testing.T, f *githubfake.Fake)
		status int
	}{
		{
			name:  "REST reply answered 502",
			fault: githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/pulls/*/comments/*/replies"), After: true, Status: 502, Times: 1},
			call: func(t *testing.T, f *githubfake.Fake) int {
				first := mustThread(t, f, 0).Comments[0]
				resp, _ := doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/comments/"+strconv.FormatInt(first.DatabaseID, 10)+"/replies", map[string]any{"body": "Done."})
				return resp.StatusCode
			},
			landed: func(t *testing.T, f *githubfake.Fake) {
				cs := mustThread(t, f, 0).Comments
				assert.Equal(t, "Done.", cs[len(cs)-1].Body)
			},
			status: 502,
		},
		{
			name:  "REST merge, connection dropped",
			fault: githubfake.Fault{Match: githubfake.MatchREST("PUT", "/repos/*/*/pulls/*/merge"), After: true, Drop: true, Times: 1},
			call: func(t *testing.T, f *githubfake.Fake) int {
				require.NoError(t, f.Apply(ref, githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess}, githubfake.Approve(alice, "")))
				req, err := http.NewRequest("PUT", githubfake.InProcessURL+"/repos/octo/widgets/pulls/7/merge", strings.NewReader(`{"merge_method":"squash"}`))
				require.NoError(t, err)
				req.Header.Set("Authorization", "token "+token)
				_, err = f.HTTPClient().Do(req)
				require.Error(t, err, "the connection is dropped")
				return 0
			},
			landed: func(t *testing.T, f *githubfake.Fake) {
				assert.Equal(t, "MERGED", string(f.PR(ref).State()))
				require.Len(t, f.Merges(), 1)
				assert.True(t, f.Merges()[0].Merged, f.Merges()[0].Refusal)
			},
		},
		{
			name:  "GraphQL mutation answered with an INTERNAL error",
			fault: githubfake.Fault{Match: githubfake.MatchMutation("resolveReviewThread"), After: true, GraphQLError: githubfake.ErrTypeInternal, Times: 1},
			call: func(t *testing.T, f *githubfake.Fake) int {
				id := mustThread(t, f, 0).ID
				resp := doGraphQL(t, f, `mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { isResolved } } }`, map[string]any{"id": id})
				require.Len(t, resp.Errors, 1)
				assert.Contains(t, resp.Errors[0].Message, "Something went wrong")
				return resp.status
			},
			landed: func(t *testing.T, f *githubfake.Fake) { assert.True(t, mustThread(t, f, 0).IsResolved) },
			status: 200,
		},
		{
			name:  "only a delay: the real answer goes through",
			fault: githubfake.Fault{Match: githubfake.MatchREST("POST", "/repos/*/*/pulls/*/comments/*/replies"), After: true, Delay: 1, Times: 1},
			call: func(t *testing.T, f *githubfake.Fake) int {
				first := mustThread(t, f, 0).Comments[0]
				resp, raw := doREST(t, f, "POST", "/repos/octo/widgets/pulls/7/comments/"+strconv.FormatInt(first.DatabaseID, 10)+"/replies", map[string]any{"body": "Done."})
				assert.Equal(t, "Done.", jsonMap(t, raw)["body"])
				assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
				return resp.StatusCode
			},
			landed: func(t *testing.T, f *githubfake.Fake) {},
			status: 201,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			openPR(t, f)
			h := f.InjectFault(tt.fault)
			assert.Equal(t, tt.status, tt.call(t, f))
			assert.Equal(t, 1, h.Hits())
			tt.landed(t, f)
			reqs := f.Requests()
			last := reqs[len(reqs)-1]
			assert.Contains(t, last.Fault, "after the operation")
			assert.Equal(t, tt.status, last.Status, "the recording shows what the client saw")
		})
	}
}

// A started fake serves log downloads from another host, records whether a token came along, and
// honours Range requests.
func TestStartedFakeServesLogsFromAnotherHost(t *testing.T) {
	f := newFake(t)
	base := f.Start()
	t.Cleanup(f.Close)
	require.NotEqual(t, base, f.LogURL())
	openPR(t, f)
	job, err := f.PR(ref).Check("test")
	require.NoError(t, err)

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest("GET", base+"/repos/octo/widgets/actions/jobs/"+strconv.FormatInt(job.JobID, 10)+"/logs", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := noRedirect.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc := resp.Header.Get("Location")
	require.True(t, strings.HasPrefix(loc, f.LogURL()+"/"), loc)

	// A Range request for the last bytes.
	req, err = http.NewRequest("GET", loc, nil)
	require.NoError(t, err)
	req.Header.Set("Range", "bytes=-9")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusPartialContent, resp.StatusCode)
	assert.Equal(t, "2: boom\n", string(body)[1:])

	// With a token: served (the URL is pre-signed) but recorded.
	req, err = http.NewRequest("GET", loc, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "bytes", resp.Header.Get("Accept-Ranges"))

	var auth []bool
	for _, r := range f.Requests() {
		if r.Kind == githubfake.KindDownload {
			auth = append(auth, r.Auth)
		}
	}
	assert.Equal(t, []bool{false, true}, auth)

	resp, err = http.Get(f.LogURL() + "/user")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "the log host serves nothing but logs")
}

func TestRequestIsMerge(t *testing.T) {
	for _, tt := range []struct {
		r    githubfake.Request
		want bool
	}{
		{githubfake.Request{Kind: githubfake.KindREST, Method: "PUT", Path: "/repos/o/r/pulls/7/merge"}, true},
		{githubfake.Request{Kind: githubfake.KindREST, Method: "PUT", Path: "/api/v3/repos/o/r/pulls/7/merge"}, true},
		{githubfake.Request{Kind: githubfake.KindREST, Method: "GET", Path: "/repos/o/r/pulls/7/merge"}, false},
		{githubfake.Request{Kind: githubfake.KindREST, Method: "PUT", Path: "/repos/o/r/pulls/7"}, false},
		{githubfake.Request{Kind: githubfake.KindGraphQL, Operation: githubfake.OpMutation, Mutation: "mergePullRequest"}, true},
		{githubfake.Request{Kind: githubfake.KindGraphQL, Operation: githubfake.OpMutation, Mutation: "resolveReviewThread"}, false},
	} {
		assert.Equal(t, tt.want, tt.r.IsMerge(), "%+v", tt.r)
	}
}
