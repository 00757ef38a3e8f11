package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func verdictOf(f Facts, who string) (ReviewerVerdict, bool) {
	for _, v := range f.Reviews.Latest {
		if v.Reviewer == who {
			return v, true
		}
	}
	return ReviewerVerdict{}, false
}

func TestLatestVerdict(t *testing.T) {
	tests := []struct {
		name string
		pr   *prBuilder
		who  string
		want ReviewState // "" means no verdict at all
	}{
		{name: "one approval", pr: aPR().commit("c1", "09:00").review("bob", approved, "10:00"), who: "bob", want: approved},
		{name: "a later COMMENTED keeps the approval", pr: aPR().commit("c1", "09:00").review("bob", approved, "10:00").review("bob", comment, "11:00"), who: "bob", want: approved},
		{name: "a later COMMENTED keeps the request for changes", pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").review("bob", comment, "11:00"), who: "bob", want: cr},
		{name: "approve after a request for changes", pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").review("bob", approved, "11:00"), who: "bob", want: approved},
		{name: "request changes after an approval", pr: aPR().commit("c1", "09:00").review("bob", approved, "10:00").review("bob", cr, "11:00"), who: "bob", want: cr},
		{name: "only COMMENTED: no verdict", pr: aPR().commit("c1", "09:00").review("bob", comment, "10:00"), who: "bob"},
		{name: "PENDING is ignored", pr: aPR().commit("c1", "09:00").review("bob", approved, "10:00").review("bob", ReviewPending, "11:00"), who: "bob", want: approved},
		{name: "a dismissal clears the verdict", pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").dismiss("bob"), who: "bob", want: ReviewDismissed},
		{name: "the PR author's reviews never count", pr: aPR().commit("c1", "09:00").review("dev", approved, "10:00"), who: "dev"},
		{
			name: "latestOpinionatedReviews fills a reviewer missing from the truncated history",
			pr:   aPR().commit("c1", "09:00").review("bob", approved, "10:00").review("carol", comment, "10:10").truncateHistory(1),
			who:  "bob", want: approved,
		},
		{
			name: "the newer of history and latestOpinionatedReviews wins (history newer)",
			pr: aPR().commit("c1", "09:00").review("bob", cr, "10:00").
				with(func(s *Snapshot) {
					s.Reviews = append(s.Reviews, Review{ID: "PRR_x", Author: actor("bob"), AuthorAssociation: AssocMember, State: approved, SubmittedAt: at("11:00")})
				}),
			who: "bob", want: approved,
		},
		{
			name: "the newer of history and latestOpinionatedReviews wins (latest newer)",
			pr: aPR().commit("c1", "09:00").review("bob", approved, "10:00").
				with(func(s *Snapshot) {
					s.LatestOpinionatedReviews = []Review{{ID: "PRR_x", Author: actor("bob"), AuthorAssociation: AssocMember, State: cr, SubmittedAt: at("11:00")}}
				}),
			who: "bob", want: cr,
		},
		{
			name: "two verdicts in the same second: the cautious one wins",
			pr: aPR().commit("c1", "09:00").with(func(s *Snapshot) {
				s.Reviews = []Review{
					{ID: "b", Author: actor("bob"), AuthorAssociation: AssocMember, State: cr, SubmittedAt: at("10:00")},
					{ID: "a", Author: actor("bob"), AuthorAssociation: AssocMember, State: approved, SubmittedAt: at("10:00")},
				}
			}),
			who: "bob", want: cr,
		},
		{
			name: "a deleted account's verdict still counts, as ghost",
			pr:   aPR().commit("c1", "09:00").review("", cr, "10:00"),
			who:  "ghost", want: cr,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, ok := verdictOf(tt.pr.derive(), tt.who)
			if tt.want == "" {
				assert.False(t, ok, "no verdict expected, got %+v", v)
				return
			}
			require.True(t, ok)
			assert.Equal(t, tt.want, v.State)
		})
	}
}

func TestReviewFacts(t *testing.T) {
	f := aPR().
		commit("c1", "09:00").review("alice", approved, "09:10").review("bob", cr, "09:20").
		commit("c2", "09:30").review("carol", approved, "09:40").review("dan", comment, "09:50").
		review("coderabbitai[bot]", comment, "09:55").
		request("erin", "acme/core", "erin").
		derive()

	assert.Equal(t, []string{"bob"}, f.Reviews.ChangesRequestedBy)
	assert.Equal(t, []string{"carol"}, f.Reviews.Approvals)
	assert.Equal(t, []string{"alice"}, f.Reviews.StaleApprovals)
	assert.Equal(t, []string{"acme/core", "erin"}, f.Reviews.PendingRequests)

	names := make([]string, len(f.Reviews.Latest))
	for i, v := range f.Reviews.Latest {
		names[i] = v.Reviewer
	}
	assert.Equal(t, []string{"alice", "bob", "carol"}, names, "sorted, commenters without a verdict left out")
	carol, _ := verdictOf(f, "carol")
	assert.True(t, carol.OnHead)
	assert.Equal(t, oid("c2"), carol.CommitOID)
	alice, _ := verdictOf(f, "alice")
	assert.False(t, alice.OnHead)
}

func TestAwaitingReRequest(t *testing.T) {
	base := func() *prBuilder { return aPR().commit("c1", "09:00").review("bob", cr, "10:00") }
	tests := []struct {
		name string
		pr   *prBuilder
		want []string
	}{
		{name: "not answered yet", pr: base()},
		{name: "answered by a fix", pr: base().commit("c2", "10:40"), want: []string{"bob"}},
		{name: "answered, but a review is already requested", pr: base().commit("c2", "10:40").request("bob")},
		{name: "answered, request matched case-insensitively", pr: base().commit("c2", "10:40").request("Bob")},
		{name: "answered, but bob's thread still needs action", pr: base().thread("T1", say{who: "bob", when: "10:00"}).commit("c2", "10:40")},
		{
			name: "answered, bob replied in his thread again",
			pr:   base().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:30"}, say{who: "bob", when: "10:50"}).commit("c2", "10:40"),
		},
		{
			name: "answered, our reply waits for bob: he is not blocked on us",
			pr:   base().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:30"}).commit("c2", "10:40"),
			want: []string{"bob"},
		},
		{name: "answered only by a merge", pr: base().mergeMain("m1", "11:00")},
		{name: "answered only by a rebase", pr: base().rebase("11:00")},
		{
			name: "two reviewers, only alice's request is answered",
			pr:   aPR().commit("c1", "09:00").review("alice", cr, "09:30").commit("c2", "09:45").review("bob", cr, "10:00"),
			want: []string{"alice"},
		},
		{name: "answered, but the PR was closed", pr: base().commit("c2", "10:40").closed()},
		{name: "approved afterwards: nothing to re-request", pr: base().commit("c2", "10:40").review("bob", approved, "11:00")},
		{
			name: "the token's user requested changes: never asked to review its own side's PR",
			pr:   base().with(func(s *Snapshot) { s.Viewer = "helper" }).review("helper", cr, "10:05").commit("c2", "10:40"),
			want: []string{"bob"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.pr.derive().Reviews.AwaitingReRequest)
		})
	}
}
