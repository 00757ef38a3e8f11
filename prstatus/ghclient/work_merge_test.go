package ghclient_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// mergeablePR is approved and green.
func mergeablePR(t *testing.T, e *fakeEnv) string {
	t.Helper()
	e.apply(t,
		githubfake.OpenPR{Title: "Add widgets", Head: "widgets"},
		githubfake.ChecksQueued{Jobs: []string{"test"}, Required: []string{"test"}},
	)
	e.apply(t, githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionSuccess}, githubfake.Approve(alice, "LGTM"))
	e.reset()
	return e.f.PR(githubfake.Ref(ref)).HeadOID()
}

func TestMerge(t *testing.T) {
	put := githubfake.MatchREST("PUT", "/repos/*/*/pulls/*/merge")
	tests := []struct {
		name      string
		before    []githubfake.Event
		faults    []githubfake.Fault
		req       func(head string) ghclient.MergeRequest
		wantErr   error
		errText   string
		reason    string // *MergeRefusedError's
		puts      int
		queries   int
		merged    bool
		recovered bool
	}{
		{name: "merges at the expected head", puts: 1, merged: true},
		{
			name:    "a branch policy refuses: the reason, one line",
			before:  []githubfake.Event{githubfake.BranchPolicy{Refusal: "Repository rule violations found\n\nChanges must be made through a merge queue."}},
			wantErr: ghclient.ErrMergeRefused, reason: "Repository rule violations found Changes must be made through a merge queue.", puts: 1,
		},
		{
			name:    "not mergeable (a conflict): refused",
			before:  []githubfake.Event{githubfake.MergeConflict{}},
			wantErr: ghclient.ErrMergeRefused, reason: "Pull Request is not mergeable", puts: 1,
		},
		{
			name:    "a 422: refused with GitHub's details",
			faults:  []githubfake.Fault{{Match: put, Status: 422, Message: "Validation Failed", Times: 1}},
			wantErr: ghclient.ErrMergeRefused, reason: "Validation Failed", puts: 1,
		},
		{
			name:    "the head moved: not merged",
			before:  []githubfake.Event{githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "late fix"}}}},
			wantErr: ghclient.ErrHeadMoved, errText: "Head branch was modified", puts: 1,
		},
		{
			name:   "a 502 after the merge happened: read again, success",
			faults: []githubfake.Fault{{Match: put, After: true, Status: 502, Times: 1}},
			puts:   1, queries: 1, merged: true, recovered: true,
		},
		{
			name:   "a connection dropped after the merge happened: read again, success",
			faults: []githubfake.Fault{{Match: put, After: true, Drop: true, Times: 1}},
			puts:   1, queries: 1, merged: true, recovered: true,
		},
		{
			name:    "a 502 and no merge: read again, the error, never a second PUT",
			faults:  []githubfake.Fault{{Match: put, Status: 502, Times: 1}},
			wantErr: ghclient.ErrUnavailable, errText: "the pull request is not merged", puts: 1, queries: 1,
		},
		{
			name:    "a dropped connection and no merge: read again, the error",
			faults:  []githubfake.Fault{{Match: put, Drop: true, Times: 1}},
			wantErr: ghclient.ErrUnavailable, puts: 1, queries: 1,
		},
		{
			name:    "a lost answer and an unreadable pull request: the error, never a second PUT",
			faults:  []githubfake.Fault{{Match: put, After: true, Status: 502, Times: 1}, {Match: githubfake.MatchGraphQLQuery(), Status: 503}},
			wantErr: ghclient.ErrUnavailable, errText: "could not be read again", puts: 1, queries: 4, merged: true,
		},
		{
			name:    "a 429 is returned, never retried",
			faults:  []githubfake.Fault{{Match: put, Status: 429, RetryAfter: 3 * time.Second, Times: 1}},
			wantErr: ghclient.ErrRateLimited, puts: 1,
		},
		{
			name:    "a 403 secondary limit is returned, never retried",
			faults:  []githubfake.Fault{{Match: put, Status: 403, RetryAfter: 3 * time.Second, Times: 1}},
			wantErr: ghclient.ErrRateLimited, puts: 1,
		},
		{
			name:    "a 403 forbidden is final",
			faults:  []githubfake.Fault{{Match: put, Status: 403, Message: "Resource not accessible by integration", Times: 1}},
			wantErr: ghclient.ErrForbidden, puts: 1,
		},
		{
			name:    "no expected head: refused locally, and it is not a moved head",
			req:     func(string) ghclient.MergeRequest { return ghclient.MergeRequest{Method: "squash"} },
			errText: "refusing to merge without the head commit the user approved", puts: 0,
		},
		{
			name:    "not a SHA: refused locally",
			req:     func(string) ghclient.MergeRequest { return ghclient.MergeRequest{ExpectedHeadSHA: "main"} },
			errText: `refusing to merge: "main" is not a commit SHA`, puts: 0,
		},
		{
			name: "an unknown method: refused locally",
			req: func(h string) ghclient.MergeRequest {
				return ghclient.MergeRequest{Method: "octopus", ExpectedHeadSHA: h}
			},
			errText: `unknown merge method "octopus"`, puts: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			head := mergeablePR(t, e)
			if tt.before != nil {
				e.apply(t, tt.before...)
				e.reset()
			}
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			req := ghclient.MergeRequest{Method: "squash", ExpectedHeadSHA: head}
			if tt.req != nil {
				req = tt.req(head)
			}
			res, err := e.c.Merge(t.Context(), ref, req)
			assertClean(t, e, err)
			if tt.wantErr != nil || tt.errText != "" || tt.reason != "" {
				require.Error(t, err)
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
				}
				assert.Contains(t, err.Error(), tt.errText)
				var refused *ghclient.MergeRefusedError
				assert.Equal(t, tt.reason != "", errors.As(err, &refused))
				if refused != nil {
					assert.Equal(t, tt.reason, refused.Reason)
				}
				if !errors.Is(tt.wantErr, ghclient.ErrHeadMoved) {
					assert.NotErrorIs(t, err, ghclient.ErrHeadMoved)
				}
			} else {
				require.NoError(t, err)
				var commit string
				require.NoError(t, e.f.PR(githubfake.Ref(ref)).View(func(pr *githubfake.PullRequest) { commit = pr.MergeCommitOID }))
				assert.Equal(t, commit, res.SHA)
				assert.NotEmpty(t, res.SHA)
				assert.Equal(t, tt.recovered, res.Recovered)
			}
			assert.Equal(t, tt.puts, e.count(http.MethodPut, "/merge"), "PUTs")
			assert.Equal(t, tt.queries, e.queries(), "re-reads")
			assert.Zero(t, e.mutations(), "never the GraphQL merge")
			assert.Equal(t, tt.merged, e.f.PR(githubfake.Ref(ref)).State() == githubfake.PRStateMerged)
			merges := e.f.Merges() // the attempts that reached the merge itself (faults may answer first)
			assert.LessOrEqual(t, len(merges), tt.puts)
			for _, m := range merges {
				assert.Equal(t, head, m.SHA, "every merge is pinned to the approved head")
				assert.Equal(t, "squash", m.Method)
			}
		})
	}
}

func TestMergeSendsMethodAndSHA(t *testing.T) {
	e := newFakeEnv(t)
	head := mergeablePR(t, e)
	_, err := e.c.Merge(t.Context(), ref, ghclient.MergeRequest{ExpectedHeadSHA: head})
	require.NoError(t, err)
	var body map[string]string
	for _, r := range e.f.Requests() {
		if r.Method == http.MethodPut {
			require.NoError(t, json.Unmarshal([]byte(r.Body), &body))
		}
	}
	assert.Equal(t, map[string]string{"merge_method": "merge", "sha": head}, body, "GitHub's default method, said explicitly")
}

// A lost answer, and someone merged another head meanwhile: not the user's merge.
func TestMergeLostAnswerButMergedElsewhere(t *testing.T) {
	e := newFakeEnv(t)
	head := mergeablePR(t, e)
	e.f.InjectFault(githubfake.Fault{Match: githubfake.MatchREST("PUT", "/repos/*/*/pulls/*/merge"), Status: 502, Times: 1})
	e.rec.next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPut {
			resp, err := http.DefaultTransport.RoundTrip(r)
			if err == nil {
				require.NoError(t, e.f.Apply(githubfake.Ref(ref), githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "x"}}}, githubfake.Merged{By: alice}))
			}
			return resp, err
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	_, err := e.c.Merge(t.Context(), ref, ghclient.MergeRequest{ExpectedHeadSHA: head})
	require.ErrorIs(t, err, ghclient.ErrHeadMoved)
	assert.Contains(t, err.Error(), "not at the approved head")
}

func TestHeadSHA(t *testing.T) {
	e := newFakeEnv(t)
	workPR(t, e)
	sha, err := e.c.HeadSHA(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, e.f.PR(githubfake.Ref(ref)).HeadOID(), sha)
	assert.Equal(t, 1, e.queries())

	e.reset()
	e.f.InjectFault(githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 502, Times: 1})
	_, err = e.c.HeadSHA(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, 2, e.queries(), "retried like any query")

	_, err = e.c.HeadSHA(t.Context(), prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 99})
	require.ErrorIs(t, err, ghclient.ErrNotFound)
	_, err = e.c.HeadSHA(t.Context(), prstatus.PRRef{Owner: "acme", Number: 1})
	require.ErrorIs(t, err, prstatus.ErrBadRef)
	assertClean(t, e, err)
}
