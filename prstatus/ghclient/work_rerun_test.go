package ghclient_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

func TestRerun(t *testing.T) {
	failed := githubfake.MatchREST("POST", "/repos/*/*/actions/runs/*/rerun-failed-jobs")
	tests := []struct {
		name     string
		whole    bool
		running  bool // a job of the run is still going
		faults   []githubfake.Fault
		dialFail int // the first n POSTs cannot connect
		runID    int64
		wantErr  error
		errText  string
		posts    int
		reruns   int // attempts GitHub started
	}{
		{name: "re-runs the failed jobs", posts: 1, reruns: 1},
		{name: "re-runs the whole run", whole: true, posts: 1, reruns: 1},
		{name: "still running: a clear error", running: true, wantErr: ghclient.ErrRunInProgress, errText: "This workflow is already running", posts: 1},
		{name: "a 502 is not retried (it may have started the run)", faults: []githubfake.Fault{{Match: failed, Status: 502, Times: 1}}, wantErr: ghclient.ErrUnavailable, posts: 1},
		{name: "a 429 is returned for the caller to schedule", faults: []githubfake.Fault{{Match: failed, Status: 429, RetryAfter: 5 * time.Second, Times: 1}}, wantErr: ghclient.ErrRateLimited, posts: 1},
		{name: "a 403 forbidden is final", faults: []githubfake.Fault{{Match: failed, Status: 403, Message: "Resource not accessible by integration", Times: 1}}, wantErr: ghclient.ErrForbidden, posts: 1},
		{name: "a dropped connection, nothing done: retried", faults: []githubfake.Fault{{Match: failed, Drop: true, Times: 1}}, posts: 2, reruns: 1},
		{
			name:   "a dropped connection after the run started: the retry's 'already running' means done",
			faults: []githubfake.Fault{{Match: failed, After: true, Drop: true, Times: 1}}, posts: 2, reruns: 1,
		},
		{name: "no connection at all: retried", dialFail: 1, posts: 2, reruns: 1},
		{name: "no connection, ever: gives up after the policy's attempts", dialFail: 100, wantErr: ghclient.ErrUnavailable, posts: 4},
		{name: "an unknown run", runID: 424242, wantErr: ghclient.ErrNotFound, posts: 1},
		{name: "no run id", runID: -1, errText: "no workflow run id", posts: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			workPR(t, e)
			check, err := e.f.PR(githubfake.Ref(ref)).Check("test")
			require.NoError(t, err)
			if tt.running {
				e.apply(t, githubfake.Push{Commits: []githubfake.NewCommit{{Headline: "more"}}}, githubfake.ChecksQueued{Jobs: []string{"test"}})
				check, err = e.f.PR(githubfake.Ref(ref)).Check("test")
				require.NoError(t, err)
				e.reset()
			}
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			var dials atomic.Int32
			e.rec.next = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				if r.Method == http.MethodPost && int(dials.Add(1)) <= tt.dialFail {
					return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connect: connection refused")}
				}
				return http.DefaultTransport.RoundTrip(r)
			})
			id := check.RunID
			if tt.runID != 0 {
				id = tt.runID
			}
			if tt.whole {
				err = e.c.RerunWorkflow(t.Context(), ref, id)
			} else {
				err = e.c.RerunFailedJobs(t.Context(), ref, id)
			}
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
			assert.Equal(t, tt.posts, e.count(http.MethodPost, ""), "POSTs")
			after, err := e.f.PR(githubfake.Ref(ref)).Check("test")
			require.NoError(t, err)
			assert.Equal(t, check.Attempt+tt.reruns, after.Attempt, "re-runs started")
			if tt.whole && tt.reruns > 0 {
				build, err := e.f.PR(githubfake.Ref(ref)).Check("build")
				require.NoError(t, err)
				assert.Equal(t, 2, build.Attempt, "the whole run")
			}
		})
	}
}

func TestRerunErrorsNameTheRun(t *testing.T) {
	e := newFakeEnv(t)
	workPR(t, e)
	err := e.c.RerunFailedJobs(context.Background(), ref, 424242)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "re-run the failed jobs of run 424242 on acme/widgets#7: "), err.Error())
}
