package prstatus

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// ghostLogin stands for a deleted account: GitHub reports its reviews with a null author, and its
// verdict still counts.
const ghostLogin = "ghost"

// loginKey folds a login for comparison: GitHub logins are case-insensitive.
func loginKey(login string) string { return strings.ToLower(login) }

// sameLogin reports whether two logins name the same account. An empty login matches nothing.
func sameLogin(a, b string) bool { return a != "" && strings.EqualFold(a, b) }

func reviewerLogin(a Actor) string {
	if a.Login == "" {
		return ghostLogin
	}
	return a.Login
}

// verdictRank orders the states of two reviews one reviewer submitted in the same second: the
// more cautious one wins, so the outcome never depends on the order GitHub listed them in.
func verdictRank(s ReviewState) int {
	switch s {
	case ReviewDismissed:
		return 3
	case ReviewChangesRequested:
		return 2
	case ReviewApproved:
		return 1
	}
	return 0
}

// supersedes reports whether review a replaces review b as its reviewer's latest verdict.
func supersedes(a, b Review) bool {
	if !a.SubmittedAt.Equal(b.SubmittedAt) {
		return a.SubmittedAt.After(b.SubmittedAt)
	}
	return cmp.Or(
		cmp.Compare(verdictRank(a.State), verdictRank(b.State)),
		strings.Compare(a.ID, b.ID),
		cmp.Compare(a.DatabaseID, b.DatabaseID),
		strings.Compare(a.CommitOID, b.CommitOID),
		strings.Compare(a.Author.Login, b.Author.Login),
		compareBool(a.Author.IsBot, b.Author.IsBot),
		strings.Compare(a.Body, b.Body),
	) > 0
}

// latestVerdicts returns each reviewer's latest opinionated review, sorted by reviewer.
//
// The history (Reviews) is only the newest page, so GitHub's latestOpinionatedReviews fills in
// reviewers missing from it; when both know a reviewer the newer review wins. COMMENTED and
// PENDING reviews never set or clear a verdict. The PR author's own reviews never count, nor do
// those of people who cannot review (policy).
func latestVerdicts(s *Snapshot, policy ReviewerPolicy) []ReviewerVerdict {
	best := make(map[string]Review, len(s.LatestOpinionatedReviews)+4)
	consider := func(r Review) {
		if !r.State.Opinionated() || sameLogin(r.Author.Login, s.Author.Login) || !policy.CanReview(r.Author, r.AuthorAssociation) {
			return
		}
		k := loginKey(reviewerLogin(r.Author))
		if cur, ok := best[k]; ok && !supersedes(r, cur) {
			return
		}
		best[k] = r
	}
	for _, r := range s.Reviews {
		consider(r)
	}
	for _, r := range s.LatestOpinionatedReviews {
		consider(r)
	}
	out := make([]ReviewerVerdict, 0, len(best))
	for _, r := range best {
		out = append(out, reviewAsVerdict(r, s.HeadOID))
	}
	slices.SortFunc(out, func(a, b ReviewerVerdict) int {
		if c := strings.Compare(loginKey(a.Reviewer), loginKey(b.Reviewer)); c != 0 {
			return c
		}
		return strings.Compare(a.Reviewer, b.Reviewer)
	})
	return out
}

// deriveReviews summarises the verdicts. AwaitingReRequest is filled later: it needs the commits
// and the threads.
func deriveReviews(s *Snapshot, verdicts []ReviewerVerdict) ReviewFacts {
	rf := ReviewFacts{
		Latest:             verdicts,
		ChangesRequestedBy: []string{},
		Approvals:          []string{},
		StaleApprovals:     []string{},
	}
	for _, v := range verdicts {
		switch {
		case v.State == ReviewChangesRequested:
			rf.ChangesRequestedBy = append(rf.ChangesRequestedBy, v.Reviewer)
		case v.State == ReviewApproved && v.OnHead:
			rf.Approvals = append(rf.Approvals, v.Reviewer)
		case v.State == ReviewApproved:
			rf.StaleApprovals = append(rf.StaleApprovals, v.Reviewer)
		}
	}
	rf.PendingRequests = sortedUnique(s.ReviewRequests)
	if reqs := sortedUnique(s.CodeOwnerRequests); len(reqs) > 0 {
		rf.CodeOwnerRequests = reqs
	}
	return rf
}

// awaitingReRequest lists the reviewers whose request for changes has been answered by a commit
// authored after it, none of whose threads is still open on our side, and who are not already
// asked to review: nothing will bring them back unless the server re-requests their review. The
// PR's own side is never asked (GitHub refuses a review request to the author).
func awaitingReRequest(verdicts []ReviewerVerdict, newestAnswer *time.Time, threads ThreadFacts, pending []string, author, viewer string) []string {
	if newestAnswer == nil {
		return nil
	}
	busy := make(map[string]bool)
	for _, list := range [][]ThreadFact{threads.NeedsAction, threads.ReviewerReplied} {
		for _, t := range list {
			busy[loginKey(t.Reviewer)] = true
		}
	}
	for _, p := range pending {
		busy[loginKey(p)] = true
	}
	var out []string
	for _, v := range verdicts {
		if v.State == ReviewChangesRequested && newestAnswer.After(v.SubmittedAt) && !busy[loginKey(v.Reviewer)] && !IsUs(v.Reviewer, author, viewer) {
			out = append(out, v.Reviewer)
		}
	}
	return out
}

// sortedUnique returns the non-empty strings of in, sorted and without duplicates (nil when none).
func sortedUnique(in []string) []string {
	var out []string
	for _, s := range in {
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// reviewAsVerdict is a review as a reviewer's verdict on the head headOID.
func reviewAsVerdict(r Review, headOID string) ReviewerVerdict {
	return ReviewerVerdict{
		Reviewer:    reviewerLogin(r.Author),
		IsBot:       r.Author.IsBot,
		State:       r.State,
		SubmittedAt: r.SubmittedAt,
		CommitOID:   r.CommitOID,
		OnHead:      headOID != "" && r.CommitOID == headOID,
		ReviewID:    r.ID,
		Body:        r.Body,
		Association: r.AuthorAssociation,
	}
}

// reviewsFromOthers lists the submitted reviews of people who cannot review, oldest first, the PR
// author's aside: what they said is shown, and nothing else comes of it.
func reviewsFromOthers(s *Snapshot, policy ReviewerPolicy) []ReviewerVerdict {
	var reviews []Review
	for _, r := range s.Reviews {
		if r.State.Submitted() && !sameLogin(r.Author.Login, s.Author.Login) && !policy.CanReview(r.Author, r.AuthorAssociation) {
			reviews = append(reviews, r)
		}
	}
	slices.SortFunc(reviews, compareReviews)
	var out []ReviewerVerdict
	for _, r := range reviews {
		out = append(out, reviewAsVerdict(r, s.HeadOID))
	}
	return out
}
