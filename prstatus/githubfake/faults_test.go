package githubfake_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestAuth(t *testing.T) {
	tests := []struct {
		name   string
		opts   []githubfake.Option
		auth   string
		status int
	}{
		{"bearer, any token", nil, "Bearer abc", 200},
		{"token scheme", nil, "token abc", 200},
		{"missing", nil, "", 401},
		{"empty token", nil, "Bearer ", 401},
		{"unknown scheme", nil, "Basic abc", 401},
		{"exact token matches", []githubfake.Option{githubfake.WithToken("s3cret")}, "Bearer s3cret", 200},
		{"exact token differs", []githubfake.Option{githubfake.WithToken("s3cret")}, "Bearer abc", 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, tt.opts...)
			for _, path := range []string{"/user", "/graphql"} {
				method, body := "GET", []byte(nil)
				if path == "/graphql" {
					method, body = "POST", []byte(`{"query":"{ viewer { login } }"}`)
				}
				resp, raw := doRaw(t, f, method, githubfake.InProcessURL+path, body, tt.auth)
				assert.Equal(t, tt.status, resp.StatusCode, path)
				if tt.status == 401 {
					assert.Equal(t, "Bad credentials", jsonMap(t, raw)["message"])
				}
			}
		})
	}
}

func TestFaults(t *testing.T) {
	query := `{ viewer { login } }`
	tests := []struct {
		name    string
		fault   githubfake.Fault
		check   func(t *testing.T, f *githubfake.Fake)
		answers int // how many requests the fault answers before things are normal again
	}{
		{
			name:  "HTTP 502 once on queries",
			fault: githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 502, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				resp := doGraphQLRaw(t, f, query)
				assert.Equal(t, 502, resp.StatusCode)
			},
			answers: 1,
		},
		{
			name:  "secondary rate limit with Retry-After",
			fault: githubfake.Fault{Match: githubfake.MatchREST("GET", "/user"), Status: 429, RetryAfter: 30 * time.Second, Times: 2},
			check: func(t *testing.T, f *githubfake.Fake) {
				resp, raw := doREST(t, f, "GET", "/user", nil)
				assert.Equal(t, 429, resp.StatusCode)
				assert.Equal(t, "30", resp.Header.Get("Retry-After"))
				assert.Contains(t, jsonMap(t, raw)["message"], "secondary rate limit")
			},
			answers: 2,
		},
		{
			name:  "primary rate limit on REST",
			fault: githubfake.Fault{Match: githubfake.MatchREST("", "/repos/*/*/pulls/*"), RateLimited: true, RetryAfter: 2 * time.Minute, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				resp, _ := doREST(t, f, "GET", "/repos/octo/widgets/pulls/7", nil)
				assert.Equal(t, 403, resp.StatusCode)
				assert.Equal(t, "0", resp.Header.Get("X-Ratelimit-Remaining"))
				reset := githubfake.DefaultStart().Add(10*time.Minute + 2*time.Minute).Unix() // openPR advanced 10 minutes
				assert.Equal(t, strconv.FormatInt(reset, 10), resp.Header.Get("X-Ratelimit-Reset"))
			},
			answers: 1,
		},
		{
			name:  "GraphQL RATE_LIMITED error",
			fault: githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeRateLimited, RateLimited: true, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				resp := doGraphQL(t, f, query, nil)
				assert.Equal(t, 200, resp.status)
				require.Len(t, resp.Errors, 1)
				assert.Equal(t, "RATE_LIMITED", resp.Errors[0].Type)
				assert.Equal(t, "0", resp.header.Get("X-Ratelimit-Remaining"))
			},
			answers: 1,
		},
		{
			name:  "typed GraphQL error on one mutation only",
			fault: githubfake.Fault{Match: githubfake.MatchMutation("resolveReviewThread"), GraphQLError: githubfake.ErrTypeForbidden},
			check: func(t *testing.T, f *githubfake.Fake) {
				resp := doGraphQL(t, f, resolveMutation, map[string]any{"input": map[string]any{"threadId": mustThread(t, f, 0).ID}})
				require.Len(t, resp.Errors, 1)
				assert.Equal(t, "FORBIDDEN", resp.Errors[0].Type)
				assert.Empty(t, doGraphQL(t, f, query, nil).Errors, "queries are not affected")
				assert.False(t, mustThread(t, f, 0).IsResolved)
			},
			answers: -1, // forever
		},
		{
			name:  "INTERNAL error",
			fault: githubfake.Fault{Match: githubfake.Match{Kind: githubfake.KindGraphQL}, GraphQLError: githubfake.ErrTypeInternal, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				resp := doGraphQL(t, f, query, nil)
				require.Len(t, resp.Errors, 1)
				assert.Equal(t, "INTERNAL", resp.Errors[0].Type)
			},
			answers: 1,
		},
		{
			name:  "dropped connection",
			fault: githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Drop: true, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				_, err := graphQLErr(f, query)
				require.Error(t, err)
			},
			answers: 1,
		},
		{
			name:  "delay honours the request context",
			fault: githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Delay: time.Hour, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				defer cancel()
				start := time.Now()
				_, err := graphQLErrCtx(ctx, f, query)
				require.Error(t, err)
				assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
				assert.Less(t, time.Since(start), 5*time.Second)
			},
			answers: 1,
		},
		{
			name:  "short delay, then a normal answer",
			fault: githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Delay: 10 * time.Millisecond, Times: 1},
			check: func(t *testing.T, f *githubfake.Fake) {
				start := time.Now()
				resp := doGraphQL(t, f, query, nil)
				assert.Empty(t, resp.Errors)
				assert.GreaterOrEqual(t, time.Since(start), 10*time.Millisecond)
			},
			answers: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			openPR(t, f)
			h := f.InjectFault(tt.fault)
			times := max(tt.answers, 1)
			for range times {
				tt.check(t, f)
			}
			if tt.answers < 0 {
				h.Remove()
			}
			resp := doGraphQL(t, f, query, nil)
			assert.Empty(t, resp.Errors, "the fault is spent")
			r, _ := doREST(t, f, "GET", "/user", nil)
			assert.Equal(t, 200, r.StatusCode)
			assert.GreaterOrEqual(t, h.Hits(), 1)
			var faulted int
			for _, rec := range f.Requests() {
				if rec.Fault != "" {
					faulted++
				}
			}
			assert.Equal(t, h.Hits(), faulted, "faulted requests are recorded as such")
		})
	}
}

func TestFaultOverRealServerDropsConnection(t *testing.T) {
	f := newFake(t)
	base := f.Start()
	defer f.Close()
	f.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("GET", "/user"), Drop: true, Times: 1})
	req, err := http.NewRequest("GET", base+"/user", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer x")
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
}

func TestRecording(t *testing.T) {
	f := newFake(t)
	openPR(t, f)
	doGraphQL(t, f, `query Poll { viewer { login } }`, nil)
	doGraphQL(t, f, `query Poll { viewer { login } }`, nil)
	doGraphQL(t, f, resolveMutation, map[string]any{"input": map[string]any{"threadId": mustThread(t, f, 0).ID}})
	doREST(t, f, "GET", "/user", nil)

	assert.Equal(t, 2, f.GraphQLQueries())
	assert.Equal(t, 1, f.GraphQLMutations())
	assert.Equal(t, 1, f.MutationCalls("resolveReviewThread"))
	assert.Equal(t, 1, f.RESTCalls())
	assert.Equal(t, []string{`query Poll { viewer { login } }`, resolveMutation}, f.Documents())

	reqs := f.Requests()
	require.Len(t, reqs, 4)
	assert.Equal(t, "Poll", reqs[0].OperationName)
	assert.Equal(t, githubfake.OpQuery, reqs[0].Operation)
	assert.Equal(t, "resolveReviewThread", reqs[2].Mutation)
	assert.Equal(t, githubfake.OpMutation, reqs[2].Operation)
	assert.Equal(t, mustThread(t, f, 0).ID, reqs[2].Variables["input"].(map[string]any)["threadId"])
	assert.Equal(t, 200, reqs[3].Status)
	assert.Equal(t, "/user", reqs[3].Path)
	assert.False(t, reqs[0].At.IsZero())

	f.ResetRecording()
	assert.Empty(t, f.Requests())
	assert.Zero(t, f.GraphQLQueries())
}

func doGraphQLRaw(t *testing.T, f *githubfake.Fake, query string) *http.Response {
	t.Helper()
	resp, _ := doRaw(t, f, "POST", githubfake.InProcessURL+"/graphql", []byte(`{"query":`+quote(query)+`}`), "Bearer x")
	return resp
}

func graphQLErr(f *githubfake.Fake, query string) (*http.Response, error) {
	return graphQLErrCtx(context.Background(), f, query)
}

func graphQLErrCtx(ctx context.Context, f *githubfake.Fake, query string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", githubfake.InProcessURL+"/graphql", strings.NewReader(`{"query":`+quote(query)+`}`))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer x")
	resp, err := f.HTTPClient().Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return resp, err
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
