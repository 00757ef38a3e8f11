package ghclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

const repliesPath = "/repos/*/*/pulls/*/comments/*/replies"

func replyTo(t *testing.T, e *fakeEnv, i int, body string) ghclient.ReplyRequest {
	t.Helper()
	th := thread(t, e, i)
	return ghclient.ReplyRequest{
		ThreadID:  th.ID,
		ReplyToID: th.Comments[0].DatabaseID,
		Body:      body,
		Marker:    prstatus.Marker{Round: "r1", Thread: th.ID, Kind: prstatus.ReplyAddressed},
	}
}

// ours returns the thread's comments written by the viewer.
func ours(t *testing.T, e *fakeEnv, i int) []githubfake.CommentInfo {
	t.Helper()
	var out []githubfake.CommentInfo
	for _, c := range thread(t, e, i).Comments {
		if c.Author.Login == "dev" {
			out = append(out, c)
		}
	}
	return out
}

func TestPostReply(t *testing.T) {
	tests := []struct {
		name      string
		faults    []githubfake.Fault
		afterPost []githubfake.Fault // injected once the first POST is on its way
		dialFail  int                // the first n POSTs cannot connect
		edit      func(r *ghclient.ReplyRequest)
		wantErr   error  // errors.Is target; nil for success
		errText   string // in the error
		want      ghclient.ReplyResult
		queries   int // GraphQL reads of the thread (attempts included)
		posts     int // REST POSTs (attempts included)
		replies   int // our comments in the thread afterwards
		minWaited time.Duration
	}{
		{name: "posts once", queries: 1, posts: 1, replies: 1},
		{
			name:   "a 502 after the reply landed: found, not posted again",
			faults: []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), After: true, Status: 502, Times: 1}},
			want:   ghclient.ReplyResult{Recovered: true}, queries: 2, posts: 1, replies: 1,
		},
		{
			name:   "a connection dropped after the reply landed: found, not posted again",
			faults: []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), After: true, Drop: true, Times: 1}},
			want:   ghclient.ReplyResult{Recovered: true}, queries: 2, posts: 1, replies: 1,
		},
		{
			name:    "a 502 before anything happened: checked, then posted again",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 502, Times: 1}},
			queries: 2, posts: 2, replies: 1,
		},
		{
			name:    "a 504 twice, then success",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 504, Times: 2}},
			queries: 3, posts: 3, replies: 1,
		},
		{
			name:    "a secondary rate limit (429, Retry-After) is waited out; no re-check needed",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 429, RetryAfter: 7 * time.Second, Times: 1}},
			queries: 1, posts: 2, replies: 1, minWaited: 7 * time.Second,
		},
		{
			name:    "a secondary rate limit (403, Retry-After) is waited out",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 403, RetryAfter: 3 * time.Second, Times: 1}},
			queries: 1, posts: 2, replies: 1, minWaited: 3 * time.Second,
		},
		{
			name:    "a rate limit longer than the patience is returned at once",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 429, RetryAfter: time.Hour, Times: 1}},
			wantErr: ghclient.ErrRateLimited, queries: 1, posts: 1,
		},
		{
			name:     "no connection could be made: posted again without a re-check",
			dialFail: 1, queries: 1, posts: 2, replies: 1,
		},
		{
			name:    "a persistent 502 gives up after the policy's attempts, checking before each",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 502}},
			wantErr: ghclient.ErrUnavailable, errText: "HTTP 502", queries: 4, posts: 4,
		},
		{
			name:    "a 422 is final",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 422, Message: "Validation Failed", Times: 1}},
			errText: "HTTP 422: Validation Failed", queries: 1, posts: 1,
		},
		{
			name:    "a 403 without a rate limit is final",
			faults:  []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), Status: 403, Message: "Resource not accessible by integration", Times: 1}},
			wantErr: ghclient.ErrForbidden, errText: "Resource not accessible by integration", queries: 1, posts: 1,
		},
		{
			name:    "an unknown comment is not found, not retried",
			edit:    func(r *ghclient.ReplyRequest) { r.ReplyToID = 987654321 },
			wantErr: ghclient.ErrNotFound, queries: 1, posts: 1,
		},
		{
			name:    "an unknown thread: nothing is posted",
			edit:    func(r *ghclient.ReplyRequest) { r.ThreadID, r.Marker.Thread = "PRRT_nope", "PRRT_nope" },
			wantErr: ghclient.ErrNotFound, queries: 1, posts: 0,
		},
		{
			name:    "a rate-limited thread read (GraphQL RATE_LIMITED) is retried by the transport",
			faults:  []githubfake.Fault{{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeRateLimited, RateLimited: true, RetryAfter: 5 * time.Second, Times: 1}},
			queries: 2, posts: 1, replies: 1, minWaited: 5 * time.Second,
		},
		{
			name:    "a GraphQL error on the thread read: nothing is posted",
			faults:  []githubfake.Fault{{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeInternal, Times: 1}},
			errText: "read the thread: Something went wrong", queries: 1, posts: 0,
		},
		{
			name:      "a failed re-check: the POST's error is returned, nothing posted twice",
			faults:    []githubfake.Fault{{Match: githubfake.MatchREST("POST", repliesPath), After: true, Status: 502, Times: 1}},
			afterPost: []githubfake.Fault{{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeForbidden}},
			wantErr:   ghclient.ErrUnavailable, errText: "could not be read again", queries: 2, posts: 1, replies: 1,
		},
		{
			name:    "bad requests are refused before any request",
			edit:    func(r *ghclient.ReplyRequest) { r.Body = "  \n" },
			errText: "empty reply",
		},
		{
			name:    "a marker for another thread is refused",
			edit:    func(r *ghclient.ReplyRequest) { r.Marker.Thread = "PRRT_other" },
			errText: `the marker names thread "PRRT_other"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			workPR(t, e)
			req := replyTo(t, e, 0, "Fixed: the nil check is in.")
			if tt.edit != nil {
				tt.edit(&req)
			}
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			posted := 0
			e.rec.next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/replies") {
					if posted++; posted <= tt.dialFail {
						return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
					}
					for _, f := range tt.afterPost {
						e.f.InjectFault(f)
					}
				}
				return http.DefaultTransport.RoundTrip(r)
			})
			res, err := e.c.PostReply(t.Context(), ref, req)
			assertClean(t, e, err)
			if tt.wantErr != nil || tt.errText != "" {
				require.Error(t, err)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				}
				assert.Contains(t, err.Error(), tt.errText)
			} else {
				require.NoError(t, err)
				mine := ours(t, e, 0)
				require.NotEmpty(t, mine)
				last := mine[len(mine)-1]
				assert.Equal(t, last.DatabaseID, res.CommentID)
				assert.NotEmpty(t, res.URL)
				assert.Equal(t, tt.want.Recovered, res.Recovered)
				assert.False(t, res.Already)
				assert.Equal(t, req.Body+"\n\n"+req.Marker.String(), last.Body)
			}
			assert.Equal(t, tt.queries, e.queries(), "thread reads")
			assert.Equal(t, tt.posts, e.count(http.MethodPost, "/replies"), "POSTs")
			assert.Zero(t, e.mutations(), "never the GraphQL reply, which can land in a pending review")
			assert.Len(t, ours(t, e, 0), tt.replies, "our comments in the thread")
			var total time.Duration
			for _, w := range e.waited() {
				total += w
			}
			assert.GreaterOrEqual(t, total, tt.minWaited)
		})
	}
}

func TestPostReplyIsOncePerReviewerComment(t *testing.T) {
	e := newFakeEnv(t)
	workPR(t, e)
	req := replyTo(t, e, 1, "Done.")
	first, err := e.c.PostReply(t.Context(), ref, req)
	require.NoError(t, err)
	e.reset()

	again, err := e.c.PostReply(t.Context(), ref, req)
	require.NoError(t, err)
	assert.Equal(t, ghclient.ReplyResult{Already: true, CommentID: first.CommentID, URL: first.URL}, again)
	assert.Equal(t, 1, e.queries())
	assert.Zero(t, e.count(http.MethodPost, ""), "nothing posted")
	assert.Len(t, ours(t, e, 1), 1)

	// Another round or kind (a flow resumed after a restart names its round afresh) does not make
	// a second reply: the thread is answered.
	for _, edit := range []func(){func() { req.Marker.Round = "r2" }, func() { req.Marker.Kind = prstatus.ReplyReplied }} {
		edit()
		e.reset()
		next, err := e.c.PostReply(t.Context(), ref, req)
		require.NoError(t, err)
		assert.Equal(t, ghclient.ReplyResult{Already: true, CommentID: first.CommentID, URL: first.URL}, next)
		assert.Zero(t, e.count(http.MethodPost, ""), "nothing posted")
		assert.Len(t, ours(t, e, 1), 1)
	}

	// The reviewer writes again: the next reply is due.
	e.apply(t, githubfake.ThreadReply{Thread: 1, By: alice, Body: "Why?"})
	next, err := e.c.PostReply(t.Context(), ref, req)
	require.NoError(t, err)
	assert.False(t, next.Already)
	assert.Len(t, ours(t, e, 1), 2)
}

// A marker pasted by someone else proves nothing: only the token's user's comments count.
func TestPostReplyIgnoresAForgedMarker(t *testing.T) {
	e := newFakeEnv(t)
	workPR(t, e)
	req := replyTo(t, e, 0, "Fixed.")
	e.apply(t, githubfake.ThreadReply{Thread: 0, By: alice, Body: "nice try " + req.Marker.String()})
	e.reset()
	res, err := e.c.PostReply(t.Context(), ref, req)
	require.NoError(t, err)
	assert.False(t, res.Already)
	assert.Equal(t, 1, e.count(http.MethodPost, "/replies"))
	assert.Len(t, ours(t, e, 0), 1)
}

// With GitHub's pending-review pitfall switched on, a REST reply is still visible at once.
func TestPostReplyIsVisibleDespitePendingReviews(t *testing.T) {
	e := newFakeEnv(t)
	e.f.SetPendingReplies(true)
	workPR(t, e)
	_, err := e.c.PostReply(t.Context(), ref, replyTo(t, e, 0, "Fixed."))
	require.NoError(t, err)
	th := thread(t, e, 0)
	assert.Empty(t, th.Pending)
	assert.Len(t, ours(t, e, 0), 1)
}

func TestPostReplyHonoursCancellation(t *testing.T) {
	e := newFakeEnv(t)
	workPR(t, e)
	e.f.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("POST", repliesPath), Status: 502})
	ctx, cancel := context.WithCancel(t.Context())
	c, err := ghclient.New(ghclient.Config{
		RESTURL: e.config.RESTURL, Transport: e.rec, Token: e.config.Token, Now: e.f.Now,
		Sleep: func(ctx context.Context, d time.Duration) error { cancel(); return ctx.Err() },
	})
	require.NoError(t, err)
	_, err = c.PostReply(ctx, ref, replyTo(t, e, 0, "Fixed."))
	require.ErrorIs(t, err, context.Canceled)
	assert.True(t, strings.Contains(err.Error(), "reply to thread"), err.Error())
	assert.Equal(t, 1, e.count(http.MethodPost, "/replies"))
}
