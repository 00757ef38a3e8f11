package ghclient_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestResolveThread(t *testing.T) {
	resolve := githubfake.MatchMutation("resolveReviewThread")
	tests := []struct {
		name      string
		before    []githubfake.Event
		faults    []githubfake.Fault
		threadID  string // "" → thread 0
		wantErr   error
		errText   string
		mutations int
		queries   int // thread reads after a final failure
		resolved  bool
	}{
		{name: "resolves", mutations: 1, resolved: true},
		{name: "already resolved is success", before: []githubfake.Event{githubfake.ThreadResolved{Thread: 0, By: alice}}, mutations: 1, resolved: true},
		{name: "a 502 is retried", faults: []githubfake.Fault{{Match: resolve, Status: 502, Times: 1}}, mutations: 2, resolved: true},
		{name: "a 502 after it landed is retried harmlessly", faults: []githubfake.Fault{{Match: resolve, After: true, Status: 502, Times: 1}}, mutations: 2, resolved: true},
		{name: "a dropped connection is retried", faults: []githubfake.Fault{{Match: resolve, Drop: true, Times: 1}}, mutations: 2, resolved: true},
		{name: "a 429 with Retry-After is waited out", faults: []githubfake.Fault{{Match: resolve, Status: 429, RetryAfter: 4 * time.Second, Times: 1}}, mutations: 2, resolved: true},
		{name: "a 403 secondary limit is waited out", faults: []githubfake.Fault{{Match: resolve, Status: 403, RetryAfter: 4 * time.Second, Times: 1}}, mutations: 2, resolved: true},
		{name: "GraphQL RATE_LIMITED is waited out", faults: []githubfake.Fault{{Match: resolve, GraphQLError: githubfake.ErrTypeRateLimited, RateLimited: true, RetryAfter: 30 * time.Second, Times: 1}}, mutations: 2, resolved: true},
		{
			name:      "a GraphQL error after it landed: the thread is read, resolved, success",
			faults:    []githubfake.Fault{{Match: resolve, After: true, GraphQLError: githubfake.ErrTypeInternal, Times: 1}},
			mutations: 1, queries: 1, resolved: true,
		},
		{
			name:    "a GraphQL error that did nothing: the thread is read, still open, error",
			faults:  []githubfake.Fault{{Match: resolve, GraphQLError: githubfake.ErrTypeInternal, Times: 1}},
			errText: "Something went wrong", mutations: 1, queries: 1,
		},
		{
			name:    "a 502 outlasting the retries, never landed",
			faults:  []githubfake.Fault{{Match: resolve, Status: 502}},
			wantErr: ghclient.ErrUnavailable, mutations: 4, queries: 1,
		},
		{
			name:      "a 502 outlasting the retries, having landed: success",
			faults:    []githubfake.Fault{{Match: resolve, After: true, Status: 502}},
			mutations: 4, queries: 1, resolved: true,
		},
		{
			name:    "FORBIDDEN is final",
			faults:  []githubfake.Fault{{Match: resolve, GraphQLError: githubfake.ErrTypeForbidden}},
			wantErr: ghclient.ErrForbidden, mutations: 1, queries: 1,
		},
		{name: "an unknown thread is not found, not retried", threadID: "PRRT_nope", wantErr: ghclient.ErrNotFound, mutations: 1},
		{name: "no thread id", threadID: " ", errText: "resolve thread", mutations: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			workPR(t, e)
			if tt.before != nil {
				e.apply(t, tt.before...)
				e.reset()
			}
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			id := tt.threadID
			if id == "" {
				id = thread(t, e, 0).ID
			}
			err := e.c.ResolveThread(t.Context(), strings.TrimSpace(id))
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
			assert.Equal(t, tt.mutations, e.mutations(), "mutations")
			assert.Equal(t, tt.queries, e.queries(), "thread reads")
			assert.Equal(t, tt.resolved, thread(t, e, 0).IsResolved)
			assert.Zero(t, e.count(http.MethodPost, ""), "no REST")
		})
	}
}
