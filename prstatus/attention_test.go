package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func attentionOf(f Facts, k AttentionKind) (Attention, bool) {
	for _, a := range f.Attentions {
		if a.Kind == k {
			return a, true
		}
	}
	return Attention{}, false
}

// green is an open PR with one commit, CI passed, mergeable.
func green() *prBuilder { return aPR().commit("c1", "09:00").passing("build", 11).passing("test", 12) }

func TestAttentionOrder(t *testing.T) {
	tests := []struct {
		name   string
		pr     *prBuilder
		want   []AttentionKind
		reason string // a fragment of the top reason
	}{
		{
			name: "merged ends everything",
			pr: green().review("bob", cr, "10:00").thread("T1", say{who: "bob", when: "10:00"}).
				run("x", 13, "COMPLETED", "FAILURE").mergeable(MergeableConflict).merged(),
			want:   []AttentionKind{AttentionMerged},
			reason: "merged",
		},
		{
			name:   "merged flag without the state",
			pr:     green().with(func(s *Snapshot) { s.Merged = true }),
			want:   []AttentionKind{AttentionMerged},
			reason: "merged",
		},
		{
			name:   "closed without merge ends everything",
			pr:     green().review("bob", cr, "10:00").run("x", 13, "COMPLETED", "FAILURE").closed(),
			want:   []AttentionKind{AttentionClosed},
			reason: "closed without merging",
		},
		{
			name: "changes requested comes before everything else",
			pr: green().review("bob", cr, "10:00").
				thread("T1", say{who: "bob", when: "10:00"}).
				thread("T2", say{who: "carol", when: "10:00"}, say{who: "dev", when: "10:10"}, say{who: "carol", when: "10:20"}).
				mergeable(MergeableConflict).
				run("x", 13, "COMPLETED", "FAILURE").run("y", 14, "COMPLETED", "CANCELLED").run("z", 15, "QUEUED", ""),
			want: []AttentionKind{
				AttentionChangesRequested, AttentionNewComments, AttentionReviewerReplied, AttentionMergeConflict,
				AttentionCIFailed, AttentionCICancelled, AttentionCIPending,
			},
			reason: "bob requested changes",
		},
		{
			name:   "new comments",
			pr:     green().thread("T1", say{who: "bob", when: "10:00"}),
			want:   []AttentionKind{AttentionNewComments},
			reason: "1 unresolved thread needs action: bob on widget.go:12",
		},
		{
			name:   "a reviewer replied",
			pr:     green().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:10"}, say{who: "bob", when: "10:20"}),
			want:   []AttentionKind{AttentionReviewerReplied},
			reason: "bob on widget.go:12",
		},
		{
			name:   "merge conflict",
			pr:     green().mergeable(MergeableConflict),
			want:   []AttentionKind{AttentionMergeConflict},
			reason: "feature conflicts with main",
		},
		{
			name:   "UNKNOWN mergeability is no conflict: re-poll",
			pr:     green().review("bob", approved, "10:00").mergeable(MergeableUnknown),
			want:   []AttentionKind{AttentionNone},
			reason: "GitHub is still computing mergeability",
		},
		{
			name:   "CI failed",
			pr:     green().run("lint", 13, "COMPLETED", "FAILURE"),
			want:   []AttentionKind{AttentionCIFailed},
			reason: "1 of 3 checks on c100000 failed: CI / lint",
		},
		{
			name:   "CI cancelled",
			pr:     green().run("lint", 13, "COMPLETED", "CANCELLED"),
			want:   []AttentionKind{AttentionCICancelled},
			reason: "were cancelled: CI / lint",
		},
		{
			name:   "CI pending",
			pr:     green().run("lint", 13, "IN_PROGRESS", ""),
			want:   []AttentionKind{AttentionCIPending},
			reason: "are still running: CI / lint",
		},
		{
			name:   "running CI does not hide comments, conflicts or failures",
			pr:     green().run("lint", 13, "IN_PROGRESS", "").run("e2e", 14, "COMPLETED", "FAILURE").mergeable(MergeableConflict).thread("T1", say{who: "bob", when: "10:00"}),
			want:   []AttentionKind{AttentionNewComments, AttentionMergeConflict, AttentionCIFailed, AttentionCIPending},
			reason: "needs action",
		},
		{
			name:   "ready to merge",
			pr:     green().review("bob", approved, "10:00").review("alice", approved, "10:05"),
			want:   []AttentionKind{AttentionReadyToMerge},
			reason: "approved by alice and bob on c100000 and CI is green (2/2 checks passed)",
		},
		{
			name:   "ready to merge with reviewDecision APPROVED",
			pr:     green().review("bob", approved, "10:00").decision("APPROVED"),
			want:   []AttentionKind{AttentionReadyToMerge},
			reason: "approved by bob",
		},
		{
			name:   "ready to merge with no checks at all",
			pr:     aPR().commit("c1", "09:00").review("bob", approved, "10:00"),
			want:   []AttentionKind{AttentionReadyToMerge},
			reason: "(0/0 checks passed)",
		},
		{
			name:   "ready, but a thread waits for a reply and a review is still requested",
			pr:     green().review("bob", approved, "10:00").thread("T1", say{who: "carol", when: "10:00"}, say{who: "dev", when: "10:10"}).request("erin"),
			want:   []AttentionKind{AttentionReadyToMerge},
			reason: "but 1 thread waits for a reviewer's reply (the repository may require resolved conversations), and a review is still requested from erin",
		},
		{
			name:   "open threads block ready: nothing may be open",
			pr:     green().review("bob", approved, "10:00").thread("T1", say{who: "carol", when: "10:00"}),
			want:   []AttentionKind{AttentionNewComments},
			reason: "needs action",
		},
		{
			name:   "a stale approval on a draft is no reminder",
			pr:     green().review("bob", approved, "10:00").with(func(s *Snapshot) { s.HeadOID = oid("newer") }).draft(),
			want:   []AttentionKind{AttentionNone},
			reason: "draft",
		},
		{
			name:   "approved but a draft",
			pr:     green().review("bob", approved, "10:00").draft(),
			want:   []AttentionKind{AttentionNone},
			reason: "the pull request is a draft",
		},
		{
			name:   "approved but approvals still required",
			pr:     green().review("bob", approved, "10:00").decision("REVIEW_REQUIRED"),
			want:   []AttentionKind{AttentionNone},
			reason: "approvals required: the base branch requires an approving review",
		},
		{
			name:   "approved but CI still running",
			pr:     green().review("bob", approved, "10:00").run("e2e", 14, "QUEUED", ""),
			want:   []AttentionKind{AttentionCIPending},
			reason: "still running",
		},
		{
			name:   "stale approval",
			pr:     green().review("bob", approved, "10:00").commit("c2", "10:30").passing("build", 21),
			want:   []AttentionKind{AttentionStaleApproval},
			reason: "the approval from bob is on an older commit",
		},
		{
			name:   "stale approval, mergeability unknown",
			pr:     green().review("bob", approved, "10:00").commit("c2", "10:30").mergeable(MergeableUnknown),
			want:   []AttentionKind{AttentionStaleApproval},
			reason: "bob",
		},
		{
			name: "a fresh approval wins over a stale one",
			pr:   green().review("bob", approved, "10:00").commit("c2", "10:30").review("alice", approved, "10:40"),
			want: []AttentionKind{AttentionReadyToMerge},
		},
		{
			name:   "no review yet",
			pr:     green(),
			want:   []AttentionKind{AttentionNone},
			reason: "waiting for review",
		},
		{
			name:   "review requested",
			pr:     green().request("bob", "acme/core"),
			want:   []AttentionKind{AttentionNone},
			reason: "waiting for review from acme/core and bob",
		},
		{
			name:   "fix pushed, the reviewer has not re-reviewed",
			pr:     green().review("bob", cr, "10:00").commit("c2", "10:30"),
			want:   []AttentionKind{AttentionNone},
			reason: "waiting for bob to re-review (review not yet re-requested from bob)",
		},
		{
			name:   "a zero snapshot",
			pr:     &prBuilder{},
			want:   []AttentionKind{AttentionNone},
			reason: "waiting for review",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			require.NotEmpty(t, f.Attentions)
			assert.Equal(t, tt.want, kinds(f))
			assert.Equal(t, f.Attentions[0], f.Attention)
			assert.Contains(t, f.Attention.Reason, tt.reason)
		})
	}
}

// TestChangesRequestedNeverReadyToMerge is a safety invariant (docs/architecture.md#safety-invariants): one reviewer's
// standing request for changes blocks readiness whatever else holds, including when the request
// has been answered by a fix and so no longer needs a refine.
func TestChangesRequestedNeverReadyToMerge(t *testing.T) {
	tests := []struct {
		name        string
		pr          *prBuilder
		needsRefine bool
	}{
		{name: "unanswered request, another approval, green", pr: green().review("bob", cr, "10:00").review("alice", approved, "10:05"), needsRefine: true},
		{name: "answered by a fix, not re-reviewed; the other approves the new head", pr: green().review("bob", cr, "10:00").commit("c2", "10:30").review("alice", approved, "10:40")},
		{name: "as above with reviewDecision APPROVED (bob is not a required reviewer)", pr: green().review("bob", cr, "10:00").commit("c2", "10:30").review("alice", approved, "10:40").decision("APPROVED")},
		{name: "as above with reviewDecision null", pr: green().review("bob", cr, "10:00").commit("c2", "10:30").review("alice", approved, "10:40").decision("")},
		{name: "a bot's request for changes", pr: green().review("copilot-pull-request-reviewer[bot]", cr, "10:00").commit("c2", "10:30").review("alice", approved, "10:40")},
		{name: "a COMMENTED review after the request", pr: green().review("bob", cr, "10:00").review("bob", comment, "10:20").commit("c2", "10:30").review("alice", approved, "10:40")},
		{name: "the request known only from latestOpinionatedReviews", pr: green().review("bob", cr, "10:00").commit("c2", "10:30").review("alice", approved, "10:40").review("carol", comment, "10:50").truncateHistory(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Equal(t, tt.needsRefine, f.Refine.NeedsRefine)
			assert.True(t, f.CI.Green())
			assert.NotEmpty(t, f.Reviews.Approvals)
			assert.NotContains(t, kinds(f), AttentionReadyToMerge)
			assert.NotContains(t, kinds(f), AttentionStaleApproval)
			if !tt.needsRefine {
				assert.Equal(t, AttentionNone, f.Attention.Kind)
				assert.Contains(t, f.Attention.Reason, "to re-review")
			}
		})
	}
}

func TestAttentionDetails(t *testing.T) {
	f := green().review("bob", cr, "10:00").
		thread("T2", say{who: "bob", when: "10:00"}).
		thread("T1", say{who: "carol", when: "09:00"}).
		thread("T3", say{who: "carol", when: "09:30"}, say{who: "dev", when: "10:10"}, say{who: "carol", when: "10:20"}).
		run("lint", 13, "COMPLETED", "FAILURE").status("ci/legacy", "FAILURE").
		derive()

	cra, _ := attentionOf(f, AttentionChangesRequested)
	assert.Equal(t, []string{"bob"}, cra.Reviewers)
	assert.Equal(t, []string{"T2"}, cra.ThreadIDs, "bob's open threads travel with the refine")
	assert.Equal(t, "changes_requested@"+oid("c1")+":"+f.Refine.Round, cra.Key)

	nc, _ := attentionOf(f, AttentionNewComments)
	assert.Equal(t, []string{"T1", "T2"}, nc.ThreadIDs)
	assert.Equal(t, []string{"bob", "carol"}, nc.Reviewers)
	assert.Equal(t, "new_comments@"+oid("c1")+":T1,T2", nc.Key)

	rr, _ := attentionOf(f, AttentionReviewerReplied)
	assert.Equal(t, []string{"T3"}, rr.ThreadIDs)
	assert.Equal(t, []string{"carol"}, rr.Reviewers)
	assert.Equal(t, "reviewer_replied@"+oid("c1")+":T3/"+f.Threads.ReviewerReplied[0].Last().ID, rr.Key)

	ci, _ := attentionOf(f, AttentionCIFailed)
	assert.Equal(t, []string{"CI / lint", "ci/legacy"}, ci.Checks)
	assert.Equal(t, "ci_failed@"+oid("c1")+":CI / lint#13,ci/legacy", ci.Key)
}

func TestAttentionKeys(t *testing.T) {
	keyOf := func(b *prBuilder, k AttentionKind) string {
		a, ok := attentionOf(b.derive(), k)
		require.True(t, ok, "no %s", k)
		return a.Key
	}
	replied := func() *prBuilder {
		return green().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:10"}, say{who: "bob", when: "10:20"})
	}

	t.Run("equal situations give equal keys", func(t *testing.T) {
		assert.Equal(t, keyOf(replied(), AttentionReviewerReplied), keyOf(replied(), AttentionReviewerReplied))
		assert.Equal(t, keyOf(green().review("bob", cr, "10:00"), AttentionChangesRequested), keyOf(green().review("bob", cr, "10:00"), AttentionChangesRequested))
	})
	t.Run("a second reply re-raises reviewer_replied", func(t *testing.T) {
		again := replied().with(func(s *Snapshot) {
			s.Threads[0].Comments = append(s.Threads[0].Comments, Comment{ID: "PRRC_new", Author: actor("bob"), AuthorAssociation: AssocMember, CreatedAt: at("10:30")})
		})
		assert.NotEqual(t, keyOf(replied(), AttentionReviewerReplied), keyOf(again, AttentionReviewerReplied))
	})
	t.Run("a new thread changes new_comments", func(t *testing.T) {
		one := green().thread("T1", say{who: "bob", when: "10:00"})
		two := green().thread("T1", say{who: "bob", when: "10:00"}).thread("T2", say{who: "bob", when: "10:05"})
		assert.NotEqual(t, keyOf(one, AttentionNewComments), keyOf(two, AttentionNewComments))
	})
	t.Run("a re-run that fails again changes ci_failed", func(t *testing.T) {
		first := green().run("lint", 13, "COMPLETED", "FAILURE")
		rerun := green().run("lint", 13, "COMPLETED", "FAILURE").run("lint", 23, "COMPLETED", "FAILURE")
		assert.NotEqual(t, keyOf(first, AttentionCIFailed), keyOf(rerun, AttentionCIFailed))
	})
	t.Run("a new head changes every key", func(t *testing.T) {
		one := green().mergeable(MergeableConflict)
		two := green().mergeable(MergeableConflict).commit("c2", "11:00")
		assert.NotEqual(t, keyOf(one, AttentionMergeConflict), keyOf(two, AttentionMergeConflict))
	})
	t.Run("a new round changes changes_requested", func(t *testing.T) {
		r1 := green().review("bob", cr, "10:00")
		r2 := green().review("bob", cr, "10:00").review("bob", cr, "10:30")
		assert.NotEqual(t, keyOf(r1, AttentionChangesRequested), keyOf(r2, AttentionChangesRequested))
	})
	t.Run("a second requester changes changes_requested", func(t *testing.T) {
		r1 := green().review("bob", cr, "10:00")
		r2 := green().review("alice", cr, "09:00").review("bob", cr, "10:00")
		assert.NotEqual(t, keyOf(r1, AttentionChangesRequested), keyOf(r2, AttentionChangesRequested))
	})
	t.Run("another approver changes ready_to_merge", func(t *testing.T) {
		one := green().review("bob", approved, "10:00")
		two := green().review("bob", approved, "10:00").review("alice", approved, "10:05")
		assert.NotEqual(t, keyOf(one, AttentionReadyToMerge), keyOf(two, AttentionReadyToMerge))
		assert.Equal(t, "ready_to_merge@"+oid("c1")+":alice,bob", keyOf(two, AttentionReadyToMerge))
	})
	t.Run("a key without ids has no colon", func(t *testing.T) {
		assert.Equal(t, "merge_conflict@"+oid("c1"), keyOf(green().mergeable(MergeableConflict), AttentionMergeConflict))
	})
}

func TestManyThreadsAreSummarised(t *testing.T) {
	b := green()
	for _, id := range []string{"T1", "T2", "T3", "T4", "T5"} {
		b.rawThread(Thread{ID: id, Path: id + ".go"}, say{who: "bob", when: "10:00"})
	}
	f := b.derive()
	assert.Equal(t, "5 unresolved threads need action: bob on T1.go, bob on T2.go, bob on T3.go and 2 more", f.Attention.Reason)
	assert.Len(t, f.Attention.ThreadIDs, 5)
}
