package effects

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// TestWorkThatOnlyMetAWaitIsPostponedNotFailed: Do tells the machine what GitHub decided, and
// keeps from it what GitHub did not: a rate limit met by any call of the work, or the caller's
// deadline, postpones it (the action stays pending); a merge GitHub answered in any way is the
// user's to decide again, so even a rate-limited merge goes to the machine.
func TestWorkThatOnlyMetAWaitIsPostponedNotFailed(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	limit := &ghclient.RateLimitError{RetryAfter: 30 * time.Second, Message: "slow down"}
	reply := statemachine.ServerRequest{Kind: statemachine.ServerPostReply, ThreadID: "T1", ReplyToID: 41, Body: "Done."}
	update := statemachine.ServerRequest{Kind: statemachine.ServerUpdateBranch, ExpectedHeadSHA: "c1"}
	tests := []struct {
		name          string
		req           statemachine.ServerRequest
		gh            GitHub
		expired       bool
		wantPostponed bool
		wantLimit     bool
		wantWhy       string
		wantOK        bool
	}{
		{name: "done", req: reply, gh: &workGitHub{}, wantOK: true},
		{name: "refused by GitHub: the machine hears it", req: reply,
			gh: &workGitHub{fail: map[string]error{`reply T1/41 "Done." `: fmt.Errorf("reply: %w", ghclient.ErrForbidden)}}},
		{name: "rate limited: postponed", req: reply, wantPostponed: true, wantLimit: true, wantWhy: "GitHub asked to wait: " + text.Error(limit),
			gh: &workGitHub{fail: map[string]error{`reply T1/41 "Done." `: fmt.Errorf("reply: %w", limit)}}},
		{name: "a branch update rate limited: postponed", req: update, wantPostponed: true, wantLimit: true, wantWhy: "GitHub asked to wait: " + text.Error(limit),
			gh: &workGitHub{fail: map[string]error{"update c1": limit}}},
		{name: "one re-run of two rate limited: postponed", req: statemachine.ServerRequest{Kind: statemachine.ServerRerunFailed, RunIDs: []int64{1, 2}},
			gh: &workGitHub{fail: map[string]error{"rerun-failed 2": limit}}, wantPostponed: true, wantLimit: true, wantWhy: "GitHub asked to wait: " + text.Error(limit)},
		{name: "failed as the deadline passed: postponed", req: reply, expired: true, wantPostponed: true, wantWhy: "the call's time ran out",
			gh: &workGitHub{fail: map[string]error{`reply T1/41 "Done." `: context.DeadlineExceeded}}},
		{name: "done as the deadline passed: the machine hears it", req: reply, expired: true, gh: &workGitHub{}, wantOK: true},
		{name: "the merge's re-read rate limited: postponed", req: mergeRequestFor(readyPR()), wantPostponed: true, wantLimit: true,
			wantWhy: "GitHub asked to wait: " + text.Error(limit), gh: &mergeGitHub{snapErr: limit}},
		{name: "the merge itself rate limited: the user decides again", req: mergeRequestFor(readyPR()),
			gh: &mergeGitHub{snap: readyPR(), mergeErr: limit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if tt.expired {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, mergeNow)
				defer cancel()
			}
			out := Do(ctx, tt.gh, work(ref, tt.req))
			assert.Equal(t, tt.wantPostponed, out.Postponed)
			assert.Equal(t, tt.wantLimit, out.RateLimit != nil)
			assert.Equal(t, tt.wantWhy, out.Why())
			if tt.wantPostponed {
				assert.Zero(t, out.Input, "the machine is not told")
				return
			}
			require.NotNil(t, out.Input.Outcome)
			assert.Equal(t, tt.req.Kind, out.Input.Outcome.Kind)
			assert.Equal(t, tt.wantOK, out.Input.Outcome.OK, out.Input.Outcome.Error)
		})
	}
}

// TestWorkDoneTwiceLandsOnce: a caller that does not know whether its work landed (its process
// died, its call was cut) does it again, and GitHub ends up with it once: a reply is found by its
// marker, a merge at a head that is no longer open merges nothing more.
func TestWorkDoneTwiceLandsOnce(t *testing.T) {
	const token = "ghp_TESTTOKEN0123456789abcdefghijklmnop"
	fake := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(token))
	url := fake.Start()
	t.Cleanup(fake.Close)
	gh, err := ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken(token), Version: "test"})
	require.NoError(t, err)
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	pr := fake.PR(githubfake.Ref(ref))
	require.NoError(t, pr.Apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}},
		githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"},
		githubfake.CommentReview(githubfake.User("bob"), "", githubfake.NewThread{Path: "a.go", Line: 3, Body: "Rename this."})))
	thread, err := pr.Thread(0)
	require.NoError(t, err)

	reply := statemachine.ServerRequest{Kind: statemachine.ServerPostReply, ThreadID: thread.ID, ReplyToID: thread.Comments[0].DatabaseID,
		Body: "Renamed.", Marker: prstatus.Marker{Round: "r1", Kind: prstatus.ReplyAddressed}}
	for range 2 {
		out := Do(t.Context(), gh, Work{PR: ref, Request: reply, Now: fake.Now(), Reviewers: prstatus.DefaultReviewerPolicy()})
		require.False(t, out.Postponed)
		require.True(t, out.Input.Outcome.OK, out.Input.Outcome.Error)
	}
	thread, err = pr.Thread(0)
	require.NoError(t, err)
	assert.Len(t, thread.Comments, 2, "the comment and one reply")

	require.NoError(t, pr.Apply(githubfake.Approve(githubfake.User("carol"), "lgtm")))
	snap, err := gh.Snapshot(t.Context(), ref)
	require.NoError(t, err)
	facts := prstatus.DeriveFor(snap, fake.Now(), prstatus.DefaultReviewerPolicy())
	view := prstatus.ViewForMerge(&facts)
	merge := statemachine.ServerRequest{Kind: statemachine.ServerMerge, MergeMethod: "squash", ExpectedHeadSHA: view.Head, Shown: &view}
	first := Do(t.Context(), gh, Work{PR: ref, Request: merge, Now: fake.Now(), Reviewers: prstatus.DefaultReviewerPolicy()})
	require.True(t, first.Input.Outcome.OK, first.Input.Outcome.Error)
	again := Do(t.Context(), gh, Work{PR: ref, Request: merge, Now: fake.Now(), Reviewers: prstatus.DefaultReviewerPolicy()})
	assert.False(t, again.Input.Outcome.OK, "a merged pull request is not merged again")
	assert.Len(t, fake.Merges(), 1)
}
