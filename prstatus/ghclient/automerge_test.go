package ghclient_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// autoMergeRequest is a squash auto-merge at the fake pull request's head.
func autoMergeRequest(e *fakeEnv) ghclient.AutoMergeRequest {
	return ghclient.AutoMergeRequest{Method: "squash", ExpectedHeadSHA: e.f.PR(githubfake.Ref(ref)).HeadOID()}
}

// waitingPR is open with a required check still running: auto-merge can be enabled on it.
var waitingPR = []githubfake.Event{
	githubfake.OpenPR{Title: "t"}, githubfake.AllowAutoMerge{Allowed: true},
	githubfake.ChecksQueued{Jobs: []string{"build"}, Required: []string{"build"}},
}

const stale = "0123456789012345678901234567890123456789"

// sentMutations counts the mutations named so the client sent, as the wire saw them: the fake
// records a dropped request only after the client has moved on.
func sentMutations(e *fakeEnv, name string) int {
	n := 0
	for _, d := range e.rec.documents() {
		if strings.HasPrefix(d.Query, "mutation") && strings.Contains(d.Query, name+"(") {
			n++
		}
	}
	return n
}

// laterCase is one row of the merge-later tables: the pull request, faults, the head asked for
// (stale: another than the head), and what must come of it.
type laterCase struct {
	name      string
	setup     []githubfake.Event
	faults    []githubfake.Fault
	stale     bool
	twice     bool
	wantErr   error
	reason    string // *MergeRefusedError's
	mutations int
	result    ghclient.LaterResult
	done      bool // the fake's pull request is as asked afterwards
}

// runLater runs the rows with call, counting mutation, and done telling whether the fake's pull
// request is as asked.
func runLater(t *testing.T, rows []laterCase, mutation string, call func(ctx context.Context, c *ghclient.Client, head string) (ghclient.LaterResult, error), done func(*githubfake.PullRequest) bool) {
	for _, tt := range rows {
		t.Run(tt.name, func(t *testing.T) {
			e := newFakeEnv(t)
			e.apply(t, tt.setup...)
			for _, f := range tt.faults {
				e.f.InjectFault(f)
			}
			head := e.f.PR(githubfake.Ref(ref)).HeadOID()
			if tt.stale {
				head = stale
			}
			res, err := call(t.Context(), e.c, head)
			if tt.twice {
				require.NoError(t, err)
				res, err = call(t.Context(), e.c, head)
			}
			assert.Equal(t, tt.mutations, sentMutations(e, mutation), "sent once at most, never re-sent")
			var got bool
			require.NoError(t, e.f.View(githubfake.Ref(ref), func(pr *githubfake.PullRequest) { got = done(pr) }))
			assert.Equal(t, tt.done, got)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				if tt.reason != "" {
					var refused *ghclient.MergeRefusedError
					require.ErrorAs(t, err, &refused)
					assert.Contains(t, refused.Reason, tt.reason)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.result, res)
		})
	}
}

func TestEnableAutoMerge(t *testing.T) {
	lost := githubfake.Fault{Match: githubfake.MatchMutation("enablePullRequestAutoMerge"), After: true, Status: 502, Times: 1}
	runLater(t, []laterCase{
		{name: "enables at the expected head", setup: waitingPR, mutations: 1, done: true},
		{name: "already enabled: nothing is sent again", setup: waitingPR, twice: true, mutations: 1, done: true, result: ghclient.LaterResult{Already: true}},
		{name: "the head moved: nothing is sent", setup: waitingPR, stale: true, wantErr: ghclient.ErrHeadMoved},
		{
			name: "the repository does not allow it: refused with GitHub's reason", setup: waitingPR[:1], mutations: 1,
			wantErr: ghclient.ErrMergeRefused, reason: "Auto merge is not allowed for this repository",
		},
		{
			name: "a pull request that could merge now: refused (merge it instead)", setup: waitingPR[:2], mutations: 1,
			wantErr: ghclient.ErrMergeRefused, reason: "Pull request is in clean status",
		},
		{name: "the answer was lost but it landed: not sent again", setup: waitingPR, faults: []githubfake.Fault{lost}, mutations: 1, done: true, result: ghclient.LaterResult{Recovered: true}},
	}, "enablePullRequestAutoMerge", func(ctx context.Context, c *ghclient.Client, head string) (ghclient.LaterResult, error) {
		return c.EnableAutoMerge(ctx, ref, ghclient.AutoMergeRequest{Method: "squash", ExpectedHeadSHA: head})
	}, func(pr *githubfake.PullRequest) bool {
		return pr.AutoMerge != nil && pr.State == githubfake.PRStateOpen
	})
}

func TestDisableAutoMerge(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, waitingPR...)
	res, err := e.c.DisableAutoMerge(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, ghclient.LaterResult{Already: true}, res, "not enabled: nothing to do")
	assert.Zero(t, sentMutations(e, "disablePullRequestAutoMerge"))

	_, err = e.c.EnableAutoMerge(t.Context(), ref, autoMergeRequest(e))
	require.NoError(t, err)
	e.f.InjectFault(githubfake.Fault{Match: githubfake.MatchMutation("disablePullRequestAutoMerge"), After: true, Drop: true, Times: 1})
	res, err = e.c.DisableAutoMerge(t.Context(), ref)
	require.NoError(t, err)
	assert.Equal(t, ghclient.LaterResult{Recovered: true}, res, "the answer was lost, and it is off")
	assert.Equal(t, 1, sentMutations(e, "disablePullRequestAutoMerge"), "sent once")
	require.NoError(t, e.f.View(githubfake.Ref(ref), func(pr *githubfake.PullRequest) { assert.Nil(t, pr.AutoMerge) }))
}

func TestEnqueue(t *testing.T) {
	queue := []githubfake.Event{githubfake.OpenPR{Title: "t"}, githubfake.AddRuleset{MergeQueue: true}}
	runLater(t, []laterCase{
		{name: "adds the pull request to the queue at the expected head", setup: queue, mutations: 1, done: true},
		{name: "already queued: nothing is sent again", setup: queue, twice: true, mutations: 1, done: true, result: ghclient.LaterResult{Already: true}},
		{name: "the head moved: nothing is sent", setup: queue, stale: true, wantErr: ghclient.ErrHeadMoved},
		{
			name: "no merge queue on the base: refused", setup: queue[:1], mutations: 1,
			wantErr: ghclient.ErrMergeRefused, reason: "does not have a merge queue",
		},
		{
			name:   "the answer was lost but it landed: not sent again",
			setup:  queue,
			faults: []githubfake.Fault{{Match: githubfake.MatchMutation("enqueuePullRequest"), After: true, Status: 504, Times: 1}},
			result: ghclient.LaterResult{Recovered: true}, mutations: 1, done: true,
		},
	}, "enqueuePullRequest", func(ctx context.Context, c *ghclient.Client, head string) (ghclient.LaterResult, error) {
		return c.Enqueue(ctx, ref, head)
	}, func(pr *githubfake.PullRequest) bool {
		return pr.Queued != nil || pr.State == githubfake.PRStateMerged // the queue merges once time passes
	})
}

func TestMergeLaterRequiresTheHeadTheUserSaw(t *testing.T) {
	e := newFakeEnv(t)
	e.apply(t, waitingPR...)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := e.c.EnableAutoMerge(ctx, ref, ghclient.AutoMergeRequest{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "without the head commit the user approved")
	_, err = e.c.Enqueue(ctx, ref, "not-a-sha")
	require.Error(t, err)
	assert.Zero(t, e.requests(), "nothing was sent")
}
