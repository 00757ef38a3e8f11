package main

import (
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// checkReport is what `prmonitor check` prints: the facts prstatus.Derive concluded, in one
// documented view. The refine and review facts are lifted to the top level and each unresolved
// thread is one line item; everything else is prstatus's own types, so a fact has one type. Its
// JSON form (--json) is a contract documented in the README ("Check a pull request"): names are
// snake_case and keep their meaning; fields may be added, never renamed. Lists are [] when empty,
// never null; times are RFC 3339 in UTC, null when unknown.
type checkReport struct {
	PR               string  `json:"pr"` // OWNER/REPO#N
	URL              string  `json:"url"`
	Title            string  `json:"title"`
	Author           string  `json:"author"`
	Viewer           string  `json:"viewer"`
	State            string  `json:"state"`
	IsDraft          bool    `json:"is_draft"`
	HeadRef          string  `json:"head_ref"`
	HeadSHA          string  `json:"head_sha"`
	BaseRef          string  `json:"base_ref"`
	Mergeable        string  `json:"mergeable"`
	MergeStateStatus string  `json:"merge_state_status"`
	ReviewDecision   *string `json:"review_decision"`

	Attention  prstatus.Attention   `json:"attention"`
	Attentions []prstatus.Attention `json:"attentions"`

	NeedsRefine             bool       `json:"needs_refine"`
	NeedsRefineReason       string     `json:"needs_refine_reason"`
	LastChangesRequestedAt  *time.Time `json:"last_changes_requested_at"`
	LastSubstantiveCommitAt *time.Time `json:"last_substantive_commit_at"`
	RefineRound             string     `json:"refine_round"`
	RewrittenSinceReview    bool       `json:"rewritten_since_review"`

	Reviews               []prstatus.ReviewerVerdict `json:"reviews"`
	ChangesRequestedBy    []string                   `json:"changes_requested_by"`
	Approvals             []string                   `json:"approvals"`
	StaleApprovals        []string                   `json:"stale_approvals"`
	PendingReviewRequests []string                   `json:"pending_review_requests"`
	AwaitingReRequest     []string                   `json:"awaiting_re_request"`

	Commits []prstatus.CommitFact `json:"commits"`
	CI      prstatus.CIFacts      `json:"ci"`
	Threads reportThreads         `json:"threads"`

	RateLimit prstatus.RateLimit `json:"rate_limit"`
	CheckedAt time.Time          `json:"checked_at"`
}

// reportThreads counts the threads by status and lists the unresolved ones.
type reportThreads struct {
	NeedsAction     int            `json:"needs_action"`
	ReviewerReplied int            `json:"reviewer_replied"`
	WaitingForReply int            `json:"waiting_for_reply"`
	Resolved        int            `json:"resolved"`
	Unresolved      []reportThread `json:"unresolved"`
}

// reportThread is an unresolved thread as one line item: where, who, and the start of what they
// wrote.
type reportThread struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Path       string `json:"path"`
	Line       int    `json:"line"`
	IsOutdated bool   `json:"is_outdated"`
	Reviewer   string `json:"reviewer"`
	LastAuthor string `json:"last_author"`
	Comments   int    `json:"comments"`
	URL        string `json:"url"`
	Excerpt    string `json:"excerpt"` // the first comment, on one line, shortened
}

// excerptRunes bounds a thread's excerpt.
const excerptRunes = 120

// newCheckReport lays the derived facts out as the README documents them.
func newCheckReport(f prstatus.Facts) checkReport {
	r := checkReport{
		PR:               f.Ref.String(),
		URL:              f.URL,
		Title:            f.Title,
		Author:           f.Author,
		Viewer:           f.Viewer,
		State:            string(f.State),
		IsDraft:          f.IsDraft,
		HeadRef:          f.HeadRef,
		HeadSHA:          f.HeadSHA,
		BaseRef:          f.BaseRef,
		Mergeable:        string(f.Mergeable),
		MergeStateStatus: f.MergeStateStatus,

		Attention:  listedAttention(f.Attention),
		Attentions: make([]prstatus.Attention, 0, len(f.Attentions)),

		NeedsRefine:             f.Refine.NeedsRefine,
		NeedsRefineReason:       f.Refine.Reason,
		LastChangesRequestedAt:  utcPtr(f.Refine.LastChangesRequestedAt),
		LastSubstantiveCommitAt: utcPtr(f.Refine.LastSubstantiveCommitAt),
		RefineRound:             f.Refine.Round,
		RewrittenSinceReview:    f.Refine.RewrittenSinceReview,

		Reviews:               list(f.Reviews.Latest),
		ChangesRequestedBy:    list(f.Reviews.ChangesRequestedBy),
		Approvals:             list(f.Reviews.Approvals),
		StaleApprovals:        list(f.Reviews.StaleApprovals),
		PendingReviewRequests: list(f.Reviews.PendingRequests),
		AwaitingReRequest:     list(f.Reviews.AwaitingReRequest),

		Commits: list(f.Commits),
		CI:      f.CI,
		Threads: reportThreads{
			NeedsAction:     len(f.Threads.NeedsAction),
			ReviewerReplied: len(f.Threads.ReviewerReplied),
			WaitingForReply: len(f.Threads.Waiting),
			Resolved:        len(f.Threads.Resolved),
			Unresolved:      []reportThread{},
		},
		RateLimit: f.RateLimit,
		CheckedAt: f.DerivedAt.UTC(),
	}
	if f.ReviewDecision != "" {
		d := f.ReviewDecision
		r.ReviewDecision = &d
	}
	for _, a := range f.Attentions {
		r.Attentions = append(r.Attentions, listedAttention(a))
	}
	r.CI.FailedChecks, r.CI.CancelledChecks, r.CI.PendingChecks = list(f.CI.FailedChecks), list(f.CI.CancelledChecks), list(f.CI.PendingChecks)
	for _, group := range [][]prstatus.ThreadFact{f.Threads.NeedsAction, f.Threads.ReviewerReplied, f.Threads.Waiting} {
		for _, t := range group {
			r.Threads.Unresolved = append(r.Threads.Unresolved, reportThread{
				ID:         t.ID,
				Status:     string(t.Status),
				Path:       t.Path,
				Line:       t.Line,
				IsOutdated: t.IsOutdated,
				Reviewer:   t.Reviewer,
				LastAuthor: t.Last().Author.Login,
				Comments:   t.TotalComments,
				URL:        t.First().URL,
				Excerpt:    text.ClipRunes(sanitize.Line(t.First().Body), excerptRunes),
			})
		}
	}
	return r
}

// listedAttention is a with its lists [] rather than null.
func listedAttention(a prstatus.Attention) prstatus.Attention {
	a.ThreadIDs, a.Checks, a.Reviewers = list(a.ThreadIDs), list(a.Checks), list(a.Reviewers)
	return a
}

// list returns a copy of s that is never nil, so that JSON shows [] rather than null.
func list[T any](s []T) []T {
	return append(make([]T, 0, len(s)), s...)
}

// utcPtr returns t in UTC, or nil when t is nil or zero.
func utcPtr(t *time.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
