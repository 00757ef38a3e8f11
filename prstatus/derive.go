package prstatus

import (
	"strconv"
	"strings"
	"time"
)

// timeFormat is how times appear in reasons and round ids: RFC 3339 in UTC, to the second, as
// GitHub reports them.
const timeFormat = time.RFC3339

// Derive concludes what the pull request needs now, and why, from one snapshot. It is pure: the
// same snapshot and time always give the same facts, whatever the order of the snapshot's lists.
// now only stamps DerivedAt. A nil or partly filled snapshot is answered, never a panic. Feedback
// is acted on as DefaultReviewerPolicy says; DeriveFor takes another policy.
func Derive(s *Snapshot, now time.Time) Facts { return DeriveFor(s, now, DefaultReviewerPolicy()) }

// DeriveFor is Derive with the policy that says whose review feedback is acted on: the reviews
// and threads of anyone else are listed apart (FromOthers) and never become an attention.
func DeriveFor(s *Snapshot, now time.Time, policy ReviewerPolicy) Facts {
	if s == nil {
		s = &Snapshot{}
	}
	merged := s.State == StateMerged || s.Merged
	closed := !merged && (s.State == StateClosed || s.Closed)

	f := Facts{
		Ref:              s.Ref,
		ID:               s.ID,
		Title:            s.Title,
		URL:              s.URL,
		Author:           s.Author.Login,
		Viewer:           s.Viewer,
		State:            s.State,
		IsDraft:          s.IsDraft,
		HeadRef:          s.HeadRef,
		HeadSHA:          s.HeadOID,
		BaseRef:          s.BaseRef,
		Mergeable:        s.Mergeable,
		MergeStateStatus: s.MergeStateStatus,
		ReviewDecision:   s.ReviewDecision,
		RateLimit:        s.RateLimit,
		DerivedAt:        now,
	}
	switch {
	case merged:
		f.State = StateMerged
	case closed:
		f.State = StateClosed
	}

	f.Commits = deriveCommits(s.Commits)
	f.Threads = deriveThreads(s, policy)
	f.CI = deriveChecks(s.Checks)

	verdicts := latestVerdicts(s, policy)
	f.Reviews = deriveReviews(s, verdicts)
	f.Reviews.History = reviewHistory(s, f.Threads, policy)
	f.Reviews.FromOthers = reviewsFromOthers(s, policy)
	open := !merged && !closed
	f.Refine = deriveRefine(open, verdicts, f.Commits)
	if open {
		f.Reviews.AwaitingReRequest = awaitingReRequest(verdicts, f.Refine.LastSubstantiveCommitAt, f.Threads, f.Reviews.PendingRequests, f.Author, f.Viewer)
	}

	f.Attentions = deriveAttentions(&f, merged, closed)
	f.Attention = f.Attentions[0]
	return f
}

// JoinNames renders a list for a sentence: "a", "a and b", "a, b and c" ("" when empty).
func JoinNames(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Plural renders a count for a sentence: "1 thread" or "3 threads".
func Plural(n int, one, many string) string {
	return strconv.Itoa(n) + " " + PluralWord(n, one, many)
}

// PluralWord picks the word for a count: one when n is 1, else many ("is" or "are").
func PluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
