package ghclient_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestRequestReviews(t *testing.T) {
	const path = "/repos/*/*/pulls/*/requested_reviewers"
	post := githubfake.MatchREST("POST", path)
	tests := []struct {
		name      string
		reviewers []string
		faults    []githubfake.Fault
		wantErr   error
		errText   string
		posts     int
		wantBody  string
		requested []string // the fake's pending requests afterwards (REST logins, teams org/slug)
	}{
		{
			name:      "users, a bot by its REST login and a team",
			reviewers: []string{"alice", "copilot-pull-request-reviewer[bot]", "acme/core", "@alice", " "},
			posts:     1,
			wantBody:  `{"reviewers":["alice","copilot-pull-request-reviewer[bot]"],"team_reviewers":["core"]}`,
			requested: []string{"alice", "copilot-pull-request-reviewer[bot]", "acme/core"},
		},
		{name: "asking again is harmless", reviewers: []string{"alice", "alice"}, posts: 1, requested: []string{"alice"}},
		{
			name: "the author: a clear one-line 422, not retried", reviewers: []string{"dev"}, posts: 1,
			errText: "request reviews on acme/widgets#7 from dev: GitHub answered HTTP 422: Review cannot be requested from pull request author.",
		},
		{
			name: "not a collaborator: GitHub's reason", reviewers: []string{"mallory"}, posts: 1,
			faults:  []githubfake.Fault{{Match: post, Status: 422, Message: "Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the acme/widgets repository.", Times: 1}},
			errText: "HTTP 422: Reviews may only be requested from collaborators.",
		},
		{name: "a 502 is retried", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, Status: 502, Times: 1}}, posts: 2, requested: []string{"alice"}},
		{name: "a 502 after it landed is retried harmlessly", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, After: true, Status: 502, Times: 1}}, posts: 2, requested: []string{"alice"}},
		{name: "a dropped connection is retried", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, Drop: true, Times: 1}}, posts: 2, requested: []string{"alice"}},
		{name: "a 429 with Retry-After is waited out", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, Status: 429, RetryAfter: 2 * time.Second, Times: 1}}, posts: 2, requested: []string{"alice"}},
		{name: "a 403 secondary limit is waited out", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, Status: 403, RetryAfter: 2 * time.Second, Times: 1}}, posts: 2, requested: []string{"alice"}},
		{name: "a 403 forbidden is final", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, Status: 403, Message: "Resource not accessible by integration"}}, wantErr: ghclient.ErrForbidden, posts: 1},
		{name: "an outage outlasting the retries", reviewers: []string{"alice"}, faults: []githubfake.Fault{{Match: post, Status: 503}}, wantErr: ghclient.ErrUnavailable, posts: 4},
		{name: "nobody: no request", reviewers: []string{" ", ""}, posts: 0},
		{name: "a malformed team: no request", reviewers: []string{"acme/core/x"}, errText: `"acme/core/x" is neither a login nor a team`, posts: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			workPR(t, e)
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			err := e.c.RequestReviews(t.Context(), ref, tt.reviewers)
			assertClean(t, e, err)
			if tt.wantErr != nil || tt.errText != "" {
				require.Error(t, err)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				}
				assert.Contains(t, err.Error(), tt.errText)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.posts, e.count(http.MethodPost, "/requested_reviewers"))
			assert.Zero(t, e.queries()+e.mutations(), "REST only")
			if tt.wantBody != "" {
				var bodies []string
				for _, r := range e.f.Requests() {
					if r.Method == "POST" {
						bodies = append(bodies, r.Body)
					}
				}
				require.Len(t, bodies, 1)
				assert.JSONEq(t, tt.wantBody, bodies[0])
			}
			if tt.requested != nil {
				assert.ElementsMatch(t, tt.requested, pending(t, e))
			}
		})
	}
}

// pending lists the pull request's pending review requests as GitHub's REST API shows them.
func pending(t *testing.T, e *fakeEnv) []string {
	t.Helper()
	resp, err := e.c.HTTPClient().Get(e.c.Endpoints().REST + "/repos/acme/widgets/pulls/7/requested_reviewers")
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Users []struct{ Login string } `json:"users"`
		Teams []struct{ Slug string }  `json:"teams"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	var got []string
	for _, u := range out.Users {
		got = append(got, u.Login)
	}
	for _, tm := range out.Teams {
		got = append(got, "acme/"+tm.Slug)
	}
	return got
}
