package prstatus

import (
	"cmp"
	"slices"
	"strings"
)

// reviewHistory lists every submitted review but the PR author's and those of people who cannot
// review, oldest first: the verdicts, and the COMMENTED reviews that say something (a body, or a
// thread they opened).
func reviewHistory(s *Snapshot, threads ThreadFacts, policy ReviewerPolicy) []ReviewerVerdict {
	reviews := make([]Review, 0, len(s.Reviews))
	for _, r := range s.Reviews {
		if r.State.Submitted() && !sameLogin(r.Author.Login, s.Author.Login) && policy.CanReview(r.Author, r.AuthorAssociation) {
			reviews = append(reviews, r)
		}
	}
	slices.SortFunc(reviews, compareReviews)
	all := make([]ReviewerVerdict, len(reviews))
	for i, r := range reviews {
		all[i] = reviewAsVerdict(r, s.HeadOID)
	}
	opened := make([]bool, len(all))
	AttributeThreads(all, threads, func(review int, _ *ThreadFact) { opened[review] = true })
	out := all[:0]
	for i, v := range all {
		if v.State == ReviewCommented && strings.TrimSpace(v.Body) == "" && !opened[i] {
			continue
		}
		out = append(out, v)
	}
	return out
}

// compareReviews orders reviews oldest first, and identical times by every other field, so the
// history never depends on the order GitHub listed it in.
func compareReviews(a, b Review) int {
	return cmp.Or(
		a.SubmittedAt.Compare(b.SubmittedAt),
		strings.Compare(a.ID, b.ID),
		cmp.Compare(a.DatabaseID, b.DatabaseID),
		strings.Compare(a.CommitOID, b.CommitOID),
		strings.Compare(a.Author.Login, b.Author.Login),
		compareBool(a.Author.IsBot, b.Author.IsBot),
		strings.Compare(string(a.State), string(b.State)),
		strings.Compare(a.Body, b.Body),
	)
}

// AttributeThreads gives each thread to the review that opened it: the reviewer's earliest review
// submitted at or after the thread's first comment. The snapshot does not link a comment to its
// review, but a review's comments are written before (or as) it is submitted, and a reply written
// while a review is pending joins that review. A thread older than the snapshot's page of reviews
// falls to the oldest review there. hist must be oldest first; threads come list by list.
// Derive uses it to keep the COMMENTED reviews that opened a thread; package rounds, to gather a
// verdict's feedback.
func AttributeThreads(hist []ReviewerVerdict, threads ThreadFacts, opened func(review int, t *ThreadFact)) {
	if len(hist) == 0 {
		return
	}
	byReviewer := make(map[string][]int, 8)
	for i, v := range hist {
		k := loginKey(v.Reviewer)
		byReviewer[k] = append(byReviewer[k], i)
	}
	for _, list := range [][]ThreadFact{threads.NeedsAction, threads.ReviewerReplied, threads.Waiting, threads.Resolved} {
		for i := range list {
			t := &list[i]
			for _, j := range byReviewer[loginKey(t.Reviewer)] {
				if !hist[j].SubmittedAt.Before(t.First().CreatedAt) {
					opened(j, t)
					break
				}
			}
		}
	}
}
