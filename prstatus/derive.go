package prstatus

import (
	"strconv"
	"strings"
	"time"
)

// timeFormat is how times appear in reasons and round ids: RFC 3339 in UTC, to the second, as
// GitHub reports them.
const timeFormat = time.RFC3339

// Options are what Derive may be told besides the snapshot and the time.
type Options struct {
	// Reviewers says whose review feedback is acted on: the zero policy trusts the people who
	// can review and no bot (Derive passes DefaultReviewerPolicy).
	Reviewers ReviewerPolicy
	// ChecksGrace is how long after a push a head with no check at all, on a base branch that
	// requires none, waits for checks to register before it counts as green (ChecksGraceEnd).
	// Zero means DefaultChecksGrace; a negative value, no grace.
	ChecksGrace time.Duration
}

// grace is the checks grace in force.
func (o Options) grace() time.Duration {
	if o.ChecksGrace == 0 {
		return DefaultChecksGrace
	}
	return max(o.ChecksGrace, 0)
}

// Derive concludes what the pull request needs now, and why, from one snapshot. It is pure: the
// same snapshot and time always give the same facts, whatever the order of the snapshot's lists.
// now stamps DerivedAt and ends the grace after a push for checks to register. A nil or partly
// filled snapshot is answered, never a panic. Feedback is acted on as DefaultReviewerPolicy says;
// DeriveFor takes another policy, DeriveWith every option.
func Derive(s *Snapshot, now time.Time) Facts { return DeriveFor(s, now, DefaultReviewerPolicy()) }

// DeriveFor is Derive with the policy that says whose review feedback is acted on: the reviews
// and threads of anyone else are listed apart (FromOthers) and never become an attention.
func DeriveFor(s *Snapshot, now time.Time, policy ReviewerPolicy) Facts {
	return DeriveWith(s, now, Options{Reviewers: policy})
}

// DeriveWith is Derive with options.
func DeriveWith(s *Snapshot, now time.Time, opts Options) Facts {
	if s == nil {
		s = &Snapshot{}
	}
	policy := opts.Reviewers
	merged := s.State == StateMerged || s.Merged
	closed := !merged && (s.State == StateClosed || s.Closed)

	f := Facts{
		Ref:               s.Ref,
		ID:                s.ID,
		Title:             s.Title,
		URL:               s.URL,
		Author:            s.Author.Login,
		AuthorAssociation: s.AuthorAssociation,
		Viewer:            s.Viewer,
		State:             s.State,
		IsDraft:           s.IsDraft,
		HeadRef:           s.HeadRef,
		HeadSHA:           s.HeadOID,
		BaseRef:           s.BaseRef,
		Mergeable:         s.Mergeable,
		MergeStateStatus:  s.MergeStateStatus,
		ReviewDecision:    s.ReviewDecision,
		BaseSHA:           s.BaseOID,
		StackedOn:         s.StackedOn,
		Rules:             s.Rules,

		AutoMergeAllowed:   s.AutoMergeAllowed,
		AutoMerge:          s.AutoMerge,
		MergeQueueRequired: s.MergeQueueRequired || s.Rules.MergeQueue,
		InMergeQueue:       s.InMergeQueue,

		RateLimit: s.RateLimit,
		DerivedAt: now,
	}
	switch {
	case merged:
		f.State = StateMerged
	case closed:
		f.State = StateClosed
	}

	f.Commits = deriveCommits(s.Commits)
	f.Threads = deriveThreads(s, policy)
	f.CI = deriveChecks(s)
	if end, ok := ChecksGraceEnd(s, now, opts.grace()); ok {
		f.CI.GraceUntil = end
	}

	verdicts := latestVerdicts(s, policy)
	f.Reviews = deriveReviews(s, verdicts)
	f.Reviews.History = reviewHistory(s, f.Threads, policy)
	f.Reviews.FromOthers = reviewsFromOthers(s, policy)
	open := !merged && !closed
	f.Refine = deriveRefine(open, verdicts, f.Commits)
	if open {
		f.Reviews.AwaitingReRequest = awaitingReRequest(verdicts, f.Refine.LastSubstantiveCommitAt, f.Threads, f.Reviews.PendingRequests, f.Author, f.Viewer)
	}

	if open {
		f.Blocked = blockedBy(&f)
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

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
