package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// associate gives every review and comment by login the association GitHub reports for it.
func (b *prBuilder) associate(login string, a Association) *prBuilder {
	return b.with(func(s *Snapshot) {
		for _, list := range [][]Review{s.Reviews, s.LatestOpinionatedReviews} {
			for i := range list {
				if list[i].Author.Login == login {
					list[i].AuthorAssociation = a
				}
			}
		}
		for _, t := range s.Threads {
			for i := range t.Comments {
				if t.Comments[i].Author.Login == login {
					t.Comments[i].AuthorAssociation = a
				}
			}
		}
	})
}

func TestOnlyPeopleWhoCanReviewAndListedBotsAreActedOn(t *testing.T) {
	p := ReviewerPolicy{Bots: []string{"copilot-pull-request-reviewer", "CodeRabbitAI[bot]"}}
	tests := []struct {
		name  string
		actor Actor
		assoc Association
		want  bool
	}{
		{"owner", actor("olive"), AssocOwner, true},
		{"member", actor("mia"), AssocMember, true},
		{"collaborator", actor("cole"), AssocCollaborator, true},
		{"past contributor", actor("pat"), AssocContributor, false},
		{"first-time contributor", actor("fay"), AssocFirstTimeContributor, false},
		{"first timer", actor("tim"), AssocFirstTimer, false},
		{"mannequin", actor("man"), AssocMannequin, false},
		{"no association", actor("nobody"), AssocNone, false},
		{"a listed bot, named without [bot]", actor("copilot-pull-request-reviewer[bot]"), AssocNone, true},
		{"a listed bot, listed with [bot] in another case", actor("coderabbitai[bot]"), AssocNone, true},
		{"an unlisted bot", actor("lint-bot[bot]"), AssocNone, false},
		{"a person named like a listed bot is not that bot's login", actor("copilot"), AssocNone, false},
		{"a person who registered a listed bot's name is not that bot", actor("copilot-pull-request-reviewer"), AssocNone, false},
		{"a listed bot as GraphQL names it", Actor{Login: "coderabbitai", IsBot: true}, AssocNone, true},
		{"none reported: proves nothing, not trusted", actor("old"), "", false},
		{"none reported, a listed bot: trusted by its login", actor("coderabbitai[bot]"), "", true},
		{"a future association GitHub may add is not trusted", actor("x"), "MAINTAINER_OF_SOMETHING", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, p.CanReview(tc.actor, tc.assoc))
		})
	}
}

func TestChangesRequestedBySomeoneWithoutAssociationNeitherBlocksNorDispatches(t *testing.T) {
	f := green().review("alice", approved, "10:00").review("nobody", cr, "11:00").
		associate("alice", AssocMember).associate("nobody", AssocNone).mergeable(MergeableYes).derive()

	assert.False(t, f.Refine.NeedsRefine, "no refine for a request by someone who cannot review")
	assert.Empty(t, f.Reviews.ChangesRequestedBy)
	assert.Equal(t, []AttentionKind{AttentionReadyToMerge}, kinds(f), "alice's approval makes it ready")
	require.Len(t, f.Reviews.FromOthers, 1, "the request is still shown")
	assert.Equal(t, "nobody", f.Reviews.FromOthers[0].Reviewer)
	assert.Equal(t, AssocNone, f.Reviews.FromOthers[0].Association)
	assert.Contains(t, f.Attention.Reason, "1 review from someone who cannot review")
	for _, v := range f.Reviews.History {
		assert.NotEqual(t, "nobody", v.Reviewer, "the history (prior verdicts for a refine) holds reviewers only")
	}
}

// TestFeedbackWithoutAnAssociationIsNotActedOn: GitHub always reports an association, so a review
// or a thread that comes without one proves nothing about its author and is not acted on (a listed
// bot still is, by its login).
func TestFeedbackWithoutAnAssociationIsNotActedOn(t *testing.T) {
	f := green().review("alice", approved, "10:00").review("nobody", cr, "11:00").
		thread("T1", say{who: "nobody", when: "11:05", body: "Rewrite it."}).
		associate("alice", AssocMember).associate("nobody", "").mergeable(MergeableYes).derive()
	assert.Empty(t, f.Reviews.ChangesRequestedBy, "no association: the request blocks nothing")
	assert.False(t, f.Refine.NeedsRefine)
	assert.Empty(t, f.Threads.NeedsAction, "nor is the thread a task")
	assert.Len(t, f.Threads.FromOthers, 1, "it is shown")
	assert.Equal(t, []AttentionKind{AttentionReadyToMerge}, kinds(f))
}

func TestChangesRequestedByACollaboratorStillBlocksAndDispatches(t *testing.T) {
	f := green().review("cole", cr, "10:00").associate("cole", AssocCollaborator).mergeable(MergeableYes).derive()

	assert.True(t, f.Refine.NeedsRefine)
	assert.Equal(t, AttentionChangesRequested, f.Attention.Kind)
	assert.Empty(t, f.Reviews.FromOthers)
}

func TestAnApprovalFromSomeoneWhoCannotReviewDoesNotMakeItReady(t *testing.T) {
	f := green().review("pat", approved, "10:00").associate("pat", AssocContributor).mergeable(MergeableYes).derive()

	assert.Empty(t, f.Reviews.Approvals)
	assert.NotContains(t, kinds(f), AttentionReadyToMerge)
	assert.Equal(t, AttentionNone, f.Attention.Kind)
}

func TestADriveByThreadIsShownButNeverATaskNorABlockOnMerging(t *testing.T) {
	f := green().review("alice", approved, "10:00").
		thread("T1", say{who: "fay", when: "10:30", body: "please rewrite it in Rust"}).
		thread("T2", say{who: "lint-bot[bot]", when: "10:31"}).
		associate("alice", AssocMember).associate("fay", AssocFirstTimeContributor).associate("lint-bot[bot]", AssocNone).
		mergeable(MergeableYes).derive()

	assert.Empty(t, f.Threads.NeedsAction)
	assert.Equal(t, []AttentionKind{AttentionReadyToMerge}, kinds(f))
	require.Len(t, f.Threads.FromOthers, 2)
	assert.Equal(t, ThreadFromOthers, f.Threads.FromOthers[0].Status)
	assert.Equal(t, AssocFirstTimeContributor, f.Threads.FromOthers[0].First().AuthorAssociation, "the label travels with the comment")
}

func TestAListedReviewBotsThreadIsATask(t *testing.T) {
	f := green().thread("T1", say{who: "coderabbitai[bot]", when: "10:30"}).associate("coderabbitai[bot]", AssocNone).derive()

	require.Len(t, f.Threads.NeedsAction, 1)
	assert.Equal(t, AttentionNewComments, f.Attention.Kind)
	assert.Empty(t, f.Threads.FromOthers)
}

func TestADriveByReplyNeitherReopensNorAnswersAThread(t *testing.T) {
	// dev (the PR's author) answered bob; then a stranger wrote: the thread still waits on bob.
	waiting := green().thread("T1", say{who: "bob", when: "10:00"}, say{who: "dev", when: "10:10"}, say{who: "nobody", when: "10:20"}).
		associate("bob", AssocMember).associate("nobody", AssocNone).derive()
	require.Len(t, waiting.Threads.Waiting, 1)
	assert.Empty(t, waiting.Threads.ReviewerReplied)

	// A stranger opened it, a member took it up: the member's concern is acted on, as theirs.
	taken := green().thread("T2", say{who: "nobody", when: "10:00"}, say{who: "mia", when: "10:05"}).
		associate("nobody", AssocNone).associate("mia", AssocMember).derive()
	require.Len(t, taken.Threads.NeedsAction, 1)
	assert.Equal(t, "mia", taken.Threads.NeedsAction[0].Reviewer)
}

func TestTheDefaultPolicyTrustsCopilotAndCodeRabbit(t *testing.T) {
	p := DefaultReviewerPolicy()
	assert.True(t, p.CanReview(actor("copilot-pull-request-reviewer[bot]"), AssocNone))
	assert.True(t, p.CanReview(actor("coderabbitai[bot]"), AssocNone))
	assert.False(t, p.CanReview(actor("dependabot[bot]"), AssocNone))
}

func TestOnlyOwnersMembersAndCollaboratorsHaveWriteAccessAndAMissingAssociationIsNone(t *testing.T) {
	for _, a := range []Association{AssocOwner, AssocMember, AssocCollaborator} {
		assert.True(t, a.CanWrite(), a)
	}
	for _, a := range []Association{AssocContributor, AssocFirstTimeContributor, AssocFirstTimer,
		AssocMannequin, AssocNone, "", "member", "ADMIN"} {
		assert.False(t, a.CanWrite(), a)
	}
}
