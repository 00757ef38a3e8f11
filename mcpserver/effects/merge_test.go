package effects

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// mergeGitHub answers the re-read and the merge; every other call panics (the nil interface).
type mergeGitHub struct {
	GitHub
	snap     *prstatus.Snapshot
	snapErr  error
	mergeRes ghclient.MergeResult
	mergeErr error

	snapshots int
	merges    []ghclient.MergeRequest
}

func (g *mergeGitHub) Snapshot(context.Context, prstatus.PRRef) (*prstatus.Snapshot, error) {
	g.snapshots++
	return g.snap, g.snapErr
}

func (g *mergeGitHub) Merge(_ context.Context, _ prstatus.PRRef, m ghclient.MergeRequest) (ghclient.MergeResult, error) {
	g.merges = append(g.merges, m)
	return g.mergeRes, g.mergeErr
}

var mergeNow = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// work is req on ref at mergeNow, under the default reviewer policy.
func work(ref prstatus.PRRef, req statemachine.ServerRequest) Work {
	return Work{PR: ref, Request: req, Now: mergeNow, Reviewers: prstatus.DefaultReviewerPolicy()}
}

// readyPR is an open, mergeable pull request approved at its head with a green check.
func readyPR() *prstatus.Snapshot {
	head := strings.Repeat("a", 40)
	at := mergeNow.Add(-time.Hour)
	return &prstatus.Snapshot{
		Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}, Title: "x", Author: prstatus.Actor{Login: "dev"}, Viewer: "dev",
		State: prstatus.StateOpen, HeadRef: "x", BaseRef: "main", HeadOID: head, Mergeable: prstatus.MergeableYes,
		Commits: []prstatus.Commit{{OID: head, AuthoredDate: at, CommittedDate: at, Headline: "x", ParentCount: 1}}, CommitsTotal: 1,
		Reviews: []prstatus.Review{{ID: "R1", Author: prstatus.Actor{Login: "carol"}, AuthorAssociation: prstatus.AssocMember, State: prstatus.ReviewApproved, SubmittedAt: at.Add(time.Minute), CommitOID: head}},
		Checks:  []prstatus.Check{{Kind: prstatus.KindCheckRun, Name: "test", Status: "COMPLETED", Conclusion: "SUCCESS", DatabaseID: 1, WorkflowRunID: 2, WorkflowName: "ci"}},
	}
}

// viewNow is what a question asked on snap would show.
func viewNow(snap *prstatus.Snapshot) prstatus.MergeView {
	f := prstatus.Derive(snap, mergeNow)
	return prstatus.ViewForMerge(&f)
}

// mergeRequestFor is the request the machine sends after the user chose to merge what snap shows.
func mergeRequestFor(snap *prstatus.Snapshot) statemachine.ServerRequest {
	f := prstatus.Derive(snap, mergeNow)
	view := prstatus.ViewForMerge(&f)
	return statemachine.ServerRequest{Kind: statemachine.ServerMerge, MergeMethod: "squash", ExpectedHeadSHA: view.Head, Shown: &view}
}

// TestTheMergeExecutorMergesOnlyWhatTheUserWasShown covers every way performMerge can end: the
// refusals before any GitHub call, the re-read that finds a change, and each answer of the merge.
func TestTheMergeExecutorMergesOnlyWhatTheUserWasShown(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	tests := []struct {
		name        string
		req         func(statemachine.ServerRequest) statemachine.ServerRequest
		gh          func(*mergeGitHub)
		want        statemachine.Outcome // Shown is checked apart
		wantReads   int
		wantMerges  int
		wantChanged string
	}{
		{name: "merged at the head the user saw", wantReads: 1, wantMerges: 1,
			gh:   func(g *mergeGitHub) { g.mergeRes = ghclient.MergeResult{SHA: "m1"} },
			want: statemachine.Outcome{OK: true, SHA: "m1"}},
		{name: "no expected head: nothing is read or merged",
			req:  func(r statemachine.ServerRequest) statemachine.ServerRequest { r.ExpectedHeadSHA = ""; return r },
			want: statemachine.Outcome{Error: "refusing to merge without the head the user approved"}},
		{name: "nothing shown: nothing is read or merged",
			req:  func(r statemachine.ServerRequest) statemachine.ServerRequest { r.Shown = nil; return r },
			want: statemachine.Outcome{Error: "refusing to merge without what the user was shown"}},
		{name: "shown another head than the expected one",
			req: func(r statemachine.ServerRequest) statemachine.ServerRequest {
				v := *r.Shown
				v.Head = strings.Repeat("b", 40)
				r.Shown = &v
				return r
			},
			want: statemachine.Outcome{Error: "refusing to merge without what the user was shown"}},
		{name: "the re-read fails", wantReads: 1,
			gh:   func(g *mergeGitHub) { g.snapErr = fmt.Errorf("snapshot: %w", ghclient.ErrUnavailable) },
			want: statemachine.Outcome{Error: "could not re-read the pull request before merging: snapshot: " + ghclient.ErrUnavailable.Error()}},
		{name: "a request for changes came after the question", wantReads: 1, wantChanged: "bob requested changes",
			gh: func(g *mergeGitHub) {
				g.snap.Reviews = append(g.snap.Reviews, prstatus.Review{ID: "R2", Author: prstatus.Actor{Login: "bob"}, AuthorAssociation: prstatus.AssocMember,
					State: prstatus.ReviewChangesRequested, SubmittedAt: mergeNow.Add(-time.Minute), CommitOID: g.snap.HeadOID})
			}},
		{name: "the approval was dismissed after the question", wantReads: 1, wantChanged: "carol's approval no longer stands (dismissed)",
			gh: func(g *mergeGitHub) {
				g.snap.Reviews = append(g.snap.Reviews, prstatus.Review{ID: "R3", Author: prstatus.Actor{Login: "carol"}, AuthorAssociation: prstatus.AssocMember,
					State: prstatus.ReviewDismissed, SubmittedAt: mergeNow.Add(-time.Minute), CommitOID: g.snap.HeadOID})
			}},
		{name: "the head moved under the merge", wantReads: 1, wantMerges: 1,
			gh:   func(g *mergeGitHub) { g.mergeErr = fmt.Errorf("merge: %w", ghclient.ErrHeadMoved) },
			want: statemachine.Outcome{HeadMoved: true, Error: "merge: " + ghclient.ErrHeadMoved.Error()}},
		{name: "GitHub refused the merge", wantReads: 1, wantMerges: 1,
			gh: func(g *mergeGitHub) {
				g.mergeErr = fmt.Errorf("merge: %w", &ghclient.MergeRefusedError{Reason: "Required status check missing"})
			},
			want: statemachine.Outcome{Refused: true, Error: "Required status check missing"}},
		{name: "any other failure", wantReads: 1, wantMerges: 1,
			gh:   func(g *mergeGitHub) { g.mergeErr = errors.New("connection reset") },
			want: statemachine.Outcome{Error: "connection reset"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shown := readyPR()
			req := mergeRequestFor(shown)
			if tt.req != nil {
				req = tt.req(req)
			}
			g := &mergeGitHub{snap: readyPR()}
			if tt.gh != nil {
				tt.gh(g)
			}
			out, ok := mergeAction(t.Context(), g, work(ref, req))
			require.True(t, ok, "a merge request is the merge executor's")
			assert.Equal(t, tt.wantReads, g.snapshots, "re-reads")
			require.Len(t, g.merges, tt.wantMerges, "merges")
			if tt.wantMerges > 0 {
				assert.Equal(t, ghclient.MergeRequest{Method: "squash", ExpectedHeadSHA: shown.HeadOID}, g.merges[0])
			}
			if tt.wantChanged != "" {
				assert.Equal(t, []string{tt.wantChanged}, out.Changed)
				require.NotNil(t, out.Shown, "the pull request as it is now, for the question asked again")
				assert.Equal(t, viewNow(g.snap), *out.Shown)
				assert.False(t, out.OK)
				return
			}
			tt.want.Kind = statemachine.ServerMerge
			assert.Equal(t, tt.want, out)
		})
	}
	t.Run("other work is not the merge executor's", func(t *testing.T) {
		g := &mergeGitHub{snap: readyPR()}
		_, ok := mergeAction(t.Context(), g, work(ref, statemachine.ServerRequest{Kind: statemachine.ServerPostReply}))
		assert.False(t, ok)
		assert.Zero(t, g.snapshots)
		assert.Empty(t, g.merges)
	})
}

// laterGitHub is mergeGitHub that also answers the merges GitHub does later.
type laterGitHub struct {
	mergeGitHub
	laterErr  error
	enqueued  []string
	autoMerge []ghclient.AutoMergeRequest
	disabled  int
}

func (g *laterGitHub) Enqueue(_ context.Context, _ prstatus.PRRef, head string) (ghclient.LaterResult, error) {
	g.enqueued = append(g.enqueued, head)
	return ghclient.LaterResult{}, g.laterErr
}

func (g *laterGitHub) EnableAutoMerge(_ context.Context, _ prstatus.PRRef, r ghclient.AutoMergeRequest) (ghclient.LaterResult, error) {
	g.autoMerge = append(g.autoMerge, r)
	return ghclient.LaterResult{}, g.laterErr
}

func (g *laterGitHub) DisableAutoMerge(context.Context, prstatus.PRRef) (ghclient.LaterResult, error) {
	g.disabled++
	return ghclient.LaterResult{}, g.laterErr
}

// TestAQueueEntryAndAutoMergeAreMergesToo: adding to the merge queue and turning auto-merge on are
// re-checked against what the user was shown like a merge, pinned to the head they saw, and sent
// once; a change since the question sends nothing.
func TestAQueueEntryAndAutoMergeAreMergesToo(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	for _, kind := range []statemachine.ServerActionKind{statemachine.ServerEnqueue, statemachine.ServerEnableAutoMerge} {
		t.Run(string(kind), func(t *testing.T) {
			req := mergeRequestFor(readyPR())
			req.Kind = kind
			g := &laterGitHub{mergeGitHub: mergeGitHub{snap: readyPR()}}
			out, ok := mergeAction(t.Context(), g, work(ref, req))
			require.True(t, ok)
			assert.Equal(t, statemachine.Outcome{Kind: kind, OK: true}, out)
			assert.Equal(t, 1, g.snapshots, "re-read first")
			head := readyPR().HeadOID
			if kind == statemachine.ServerEnqueue {
				assert.Equal(t, []string{head}, g.enqueued)
			} else {
				assert.Equal(t, []ghclient.AutoMergeRequest{{Method: "squash", ExpectedHeadSHA: head}}, g.autoMerge)
			}
			assert.Empty(t, g.merges, "no direct merge")

			g = &laterGitHub{mergeGitHub: mergeGitHub{snap: readyPR()}}
			g.snap.HeadOID = strings.Repeat("b", 40)
			out, _ = mergeAction(t.Context(), g, work(ref, req))
			assert.False(t, out.OK)
			assert.NotEmpty(t, out.Changed, "the head moved: nothing sent")
			assert.Empty(t, g.enqueued)
			assert.Empty(t, g.autoMerge)

			g = &laterGitHub{mergeGitHub: mergeGitHub{snap: readyPR()}, laterErr: fmt.Errorf("x: %w", &ghclient.MergeRefusedError{Reason: "Pull request is in clean status"})}
			out, _ = mergeAction(t.Context(), g, work(ref, req))
			assert.Equal(t, statemachine.Outcome{Kind: kind, Refused: true, Error: "Pull request is in clean status"}, out)
		})
	}
}

// TestTurningAutoMergeOffIsSentWithoutARecheckAndWaitsOutGitHub: it never merges, so it needs no
// head; GitHub asking to wait postpones it (it is sent again), any other failure is the machine's.
func TestTurningAutoMergeOffIsSentWithoutARecheckAndWaitsOutGitHub(t *testing.T) {
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	req := statemachine.ServerRequest{Kind: statemachine.ServerDisableAutoMerge}
	g := &laterGitHub{}
	o := Do(t.Context(), g, work(ref, req))
	require.False(t, o.Postponed)
	assert.Equal(t, statemachine.OutcomeInput(statemachine.Outcome{Kind: statemachine.ServerDisableAutoMerge, OK: true}), o.Input)
	assert.Equal(t, 1, g.disabled)
	assert.Zero(t, g.snapshots, "no re-read: turning it off merges nothing")

	g = &laterGitHub{laterErr: fmt.Errorf("disable: %w", &ghclient.RateLimitError{RetryAfter: time.Minute})}
	o = Do(t.Context(), g, work(ref, req))
	assert.True(t, o.Postponed, "GitHub asked to wait: sent again later")
	require.NotNil(t, o.RateLimit)

	g = &laterGitHub{laterErr: errors.New("connection reset")}
	o = Do(t.Context(), g, work(ref, req))
	assert.False(t, o.Postponed)
	assert.Equal(t, "connection reset", o.Input.Outcome.Error)
}
