package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	approved = ReviewApproved
	cr       = ReviewChangesRequested
	comment  = ReviewCommented
)

// TestNeedsRefine is the rule of docs/needs-refine.md, one story per row. docs/needs-refine.md shows the
// same table.
func TestNeedsRefine(t *testing.T) {
	tests := []struct {
		name      string
		pr        *prBuilder
		want      bool
		rewritten bool
		reason    []string // fragments the reason must contain
	}{
		{
			name:   "changes requested, no commit since",
			pr:     aPR().commit("c1", "09:00").review("bob", cr, "10:00"),
			want:   true,
			reason: []string{"bob requested changes at 2026-11-20T10:00:00Z", "c1", "predates it"},
		},
		{
			name:   "a new fix commit answers the review",
			pr:     aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:40"),
			want:   false,
			reason: []string{"answered by c2", "authored 10:40"},
		},
		{
			name:   "Merge branch 'main' after the review does not answer it",
			pr:     aPR().commit("c1", "09:00").review("bob", cr, "10:00").mergeMain("m1", "11:00"),
			want:   true,
			reason: []string{"1 merge commit since do not count"},
		},
		{
			name: "a two-parent merge with an ordinary headline does not answer it",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").
				rawCommit(Commit{OID: oid("m1"), AuthoredDate: at("11:00"), CommittedDate: at("11:00"), Headline: "sync with upstream", ParentCount: 2}),
			want: true,
		},
		{
			name: "a squashed 'Merge pull request' commit with one parent does not answer it",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").
				rawCommit(Commit{OID: oid("m1"), AuthoredDate: at("11:00"), CommittedDate: at("11:00"), Headline: "Merge pull request #6 from acme/base", ParentCount: 1}),
			want: true,
		},
		{
			name:      "a rebase onto a newer base keeps author dates: not an answer",
			pr:        aPR().commit("c1", "09:00").commit("c2", "09:30").review("bob", cr, "10:00").rebase("11:00"),
			want:      true,
			rewritten: true,
			reason:    []string{"2 commits were rewritten since"},
		},
		{
			name:      "a fix, then a rebase: the fix's author date still answers",
			pr:        aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:40").rebase("12:00"),
			want:      false,
			rewritten: true,
		},
		{
			name:      "an amend that keeps the old author date looks like a rebase (limitation)",
			pr:        aPR().commit("c1", "09:00").review("bob", cr, "10:00").with(func(s *Snapshot) { s.Commits = nil }).rewritten("c1b", "09:00", "10:30"),
			want:      true,
			rewritten: true,
		},
		{
			name:      "a fix authored before the review but pushed after it (limitation)",
			pr:        aPR().commit("c1", "09:00").review("bob", cr, "10:00").rewritten("c2", "09:50", "10:20"),
			want:      true,
			rewritten: true,
		},
		{
			name: "round 2: a new request for changes after the fix",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:40").
				review("bob", cr, "11:00"),
			want:   true,
			reason: []string{"at 2026-11-20T11:00:00Z", "c2", "authored 10:40"},
		},
		{
			name: "round 3",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:40").
				review("bob", cr, "11:00").commit("c3", "11:30").review("bob", cr, "12:00"),
			want: true,
		},
		{
			name: "round 3 answered",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:40").
				review("bob", cr, "11:00").commit("c3", "11:30").review("bob", cr, "12:00").commit("c4", "12:30"),
			want: false,
		},
		{
			name: "the reviewer approves after the fix",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:40").review("bob", approved, "11:00"),
			want: false,
		},
		{
			name: "the reviewer approves without a fix",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").review("bob", approved, "11:00"),
			want: false,
		},
		{
			name: "a COMMENTED review after the request does not clear it",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").review("bob", comment, "10:30"),
			want: true,
		},
		{
			name: "a dismissed request for changes",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").dismiss("bob"),
			want: false,
		},
		{
			name: "reviewDecision null (no required reviews) with a request for changes",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").decision(""),
			want: true,
		},
		{
			name: "reviewDecision APPROVED does not hide a standing request for changes",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").review("carol", approved, "10:05").decision("APPROVED"),
			want: true,
		},
		{
			name: "one reviewer approves, the other's request is still open",
			pr:   aPR().commit("c1", "09:00").review("alice", approved, "09:30").review("bob", cr, "10:00"),
			want: true,
		},
		{
			name: "two requests, a fix between them: the newest request counts",
			pr:   aPR().commit("c1", "09:00").review("alice", cr, "10:00").commit("c2", "10:30").review("bob", cr, "11:00"),
			want: true,
		},
		{
			name: "a request for changes from a bot",
			pr:   aPR().commit("c1", "09:00").review("copilot-pull-request-reviewer[bot]", cr, "10:00"),
			want: true,
		},
		{
			name: "the PR was closed",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").closed(),
			want: false,
		},
		{
			name: "the PR was merged",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").merged(),
			want: false,
		},
		{
			name: "no commits at all",
			pr:   aPR().review("bob", cr, "10:00"),
			want: true,
		},
		{
			name: "the request is known only from latestOpinionatedReviews (history truncated)",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").
				review("carol", comment, "10:10").review("dan", comment, "10:20").truncateHistory(2),
			want: true,
		},
		{
			name: "the PR author's own review never counts",
			pr:   aPR().commit("c1", "09:00").review("dev", cr, "10:00"),
			want: false,
		},
		{
			name: "a commit authored in the same second as the review answers it",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "10:00"),
			want: false,
		},
		{
			name: "a later day",
			pr:   aPR().commit("c1", "09:00").review("bob", cr, "10:00").commit("c2", "+1d 08:00"),
			want: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Equal(t, tt.want, f.Refine.NeedsRefine, f.Refine.Reason)
			assert.Equal(t, tt.rewritten, f.Refine.RewrittenSinceReview, "rewritten_since_review")
			assert.NotEmpty(t, f.Refine.Reason)
			for _, frag := range tt.reason {
				assert.Contains(t, f.Refine.Reason, frag)
			}
			if tt.want {
				assert.Equal(t, AttentionChangesRequested, f.Attention.Kind)
			} else {
				assert.NotContains(t, kinds(f), AttentionChangesRequested)
			}
		})
	}
}

func TestRefineReasonReadsLikeTheDesign(t *testing.T) {
	f := aPR().
		rawCommit(Commit{OID: oid("abc1234"), AuthoredDate: at("09:12"), CommittedDate: at("09:12"), Headline: "Add widget", ParentCount: 1}).
		review("bob", cr, "10:00").
		mergeMain("m1", "10:30").mergeMain("m2", "11:30").
		derive()
	require.True(t, f.Refine.NeedsRefine)
	assert.Equal(t, "bob requested changes at 2026-11-20T10:00:00Z; the newest substantive commit (abc1234, authored 09:12) predates it; 2 merge commits since do not count", f.Refine.Reason)

	f = aPR().commit("c1", "09:00").review("bob", cr, "10:00").
		rawCommit(Commit{OID: oid("abc1234"), AuthoredDate: at("10:40"), CommittedDate: at("10:40"), Headline: "Address review", ParentCount: 1}).
		derive()
	assert.Equal(t, "bob requested changes at 2026-11-20T10:00:00Z; answered by abc1234 authored 10:40", f.Refine.Reason)

	f = aPR().review("alice", cr, "09:00").review("bob", cr, "10:00").derive()
	assert.Equal(t, "alice and bob requested changes (newest at 2026-11-20T10:00:00Z); there is no substantive commit yet", f.Refine.Reason)
}

func TestRefineFactsInputs(t *testing.T) {
	f := aPR().commit("c1", "09:00").review("alice", cr, "09:30").
		commit("c2", "09:45").review("coderabbitai[bot]", cr, "10:00").mergeMain("m1", "11:00").derive()

	require.NotNil(t, f.Refine.LastChangesRequestedAt)
	require.NotNil(t, f.Refine.LastSubstantiveCommitAt)
	assert.Equal(t, at("10:00"), *f.Refine.LastChangesRequestedAt)
	assert.Equal(t, at("09:45"), *f.Refine.LastSubstantiveCommitAt, "merges never count")
	assert.Equal(t, "2026-11-20T10:00:00Z/alice+coderabbitai_bot", f.Refine.Round)
	assert.Equal(t, []string{"PRR_1", "PRR_2"}, f.Refine.ReviewIDs)

	none := aPR().commit("c1", "09:00").derive()
	assert.Nil(t, none.Refine.LastChangesRequestedAt)
	assert.Empty(t, none.Refine.Round)
	assert.Empty(t, none.Refine.ReviewIDs)
	assert.False(t, none.Refine.NeedsRefine)
}

func TestRoundSurvivesTheReplyMarker(t *testing.T) {
	f := aPR().review("Bob", cr, "10:00").review("copilot-pull-request-reviewer[bot]", cr, "10:05").derive()
	m, ok := ParseMarker("answer " + Marker{Round: f.Refine.Round, Thread: "T1", Kind: ReplyAddressed}.String())
	require.True(t, ok)
	assert.Equal(t, f.Refine.Round, m.Round)
}

func TestRoundChangesBetweenRounds(t *testing.T) {
	r1 := aPR().commit("c1", "09:00").review("bob", cr, "10:00")
	first := r1.derive().Refine.Round
	sameRoundAfterMerge := r1.mergeMain("m1", "10:10").derive().Refine.Round
	second := r1.commit("c2", "10:40").review("bob", cr, "11:00").derive().Refine.Round
	assert.Equal(t, first, sameRoundAfterMerge)
	assert.NotEqual(t, first, second)
}
