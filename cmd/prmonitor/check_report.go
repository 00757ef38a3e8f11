package main

import (
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// checkReport is what `prmonitor check` prints: the facts prstatus.Derive concluded, flattened
// for a reader. Its JSON form (--json) is a contract documented in the README ("Check a pull
// request"): names are snake_case and keep their meaning; fields may be added, never renamed.
// Lists are [] when empty, never null; times are RFC 3339 in UTC, null when unknown.
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

	Attention  reportAttention   `json:"attention"`
	Attentions []reportAttention `json:"attentions"`

	NeedsRefine             bool       `json:"needs_refine"`
	NeedsRefineReason       string     `json:"needs_refine_reason"`
	LastChangesRequestedAt  *time.Time `json:"last_changes_requested_at"`
	LastSubstantiveCommitAt *time.Time `json:"last_substantive_commit_at"`
	RefineRound             string     `json:"refine_round"`
	RewrittenSinceReview    bool       `json:"rewritten_since_review"`

	Reviews               []reportVerdict `json:"reviews"`
	ChangesRequestedBy    []string        `json:"changes_requested_by"`
	Approvals             []string        `json:"approvals"`
	StaleApprovals        []string        `json:"stale_approvals"`
	PendingReviewRequests []string        `json:"pending_review_requests"`
	AwaitingReRequest     []string        `json:"awaiting_re_request"`

	Commits []reportCommit `json:"commits"`
	CI      reportCI       `json:"ci"`
	Threads reportThreads  `json:"threads"`

	RateLimit reportRateLimit `json:"rate_limit"`
	CheckedAt time.Time       `json:"checked_at"`
}

type reportAttention struct {
	Kind      string   `json:"kind"`
	Reason    string   `json:"reason"`
	Key       string   `json:"key"`
	ThreadIDs []string `json:"thread_ids"`
	Checks    []string `json:"checks"`
	Reviewers []string `json:"reviewers"`
}

type reportVerdict struct {
	Reviewer    string    `json:"reviewer"`
	IsBot       bool      `json:"is_bot"`
	State       string    `json:"state"`
	SubmittedAt time.Time `json:"submitted_at"`
	CommitOID   string    `json:"commit_oid"`
	OnHead      bool      `json:"on_head"`
}

type reportCommit struct {
	OID         string    `json:"oid"`
	Headline    string    `json:"headline"`
	Kind        string    `json:"kind"`
	AuthoredAt  time.Time `json:"authored_at"`
	CommittedAt time.Time `json:"committed_at"`
}

type reportCI struct {
	Total           int           `json:"total"`
	Passed          int           `json:"passed"`
	Failed          int           `json:"failed"`
	Cancelled       int           `json:"cancelled"`
	Pending         int           `json:"pending"`
	FailedChecks    []reportCheck `json:"failed_checks"`
	CancelledChecks []reportCheck `json:"cancelled_checks"`
	PendingChecks   []reportCheck `json:"pending_checks"`
}

type reportCheck struct {
	Name     string `json:"name"`
	Workflow string `json:"workflow"`
	Result   string `json:"result"`
	Required bool   `json:"required"`
	URL      string `json:"url"`
}

type reportThreads struct {
	NeedsAction     int            `json:"needs_action"`
	ReviewerReplied int            `json:"reviewer_replied"`
	WaitingForReply int            `json:"waiting_for_reply"`
	Resolved        int            `json:"resolved"`
	Unresolved      []reportThread `json:"unresolved"`
}

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

type reportRateLimit struct {
	Cost      int        `json:"cost"`
	Remaining int        `json:"remaining"`
	Limit     int        `json:"limit"`
	ResetAt   *time.Time `json:"reset_at"`
}

// excerptRunes bounds a thread's excerpt.
const excerptRunes = 120

// newCheckReport flattens the derived facts.
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

		Attention: newReportAttention(f.Attention),

		NeedsRefine:             f.Refine.NeedsRefine,
		NeedsRefineReason:       f.Refine.Reason,
		LastChangesRequestedAt:  utcPtr(f.Refine.LastChangesRequestedAt),
		LastSubstantiveCommitAt: utcPtr(f.Refine.LastSubstantiveCommitAt),
		RefineRound:             f.Refine.Round,
		RewrittenSinceReview:    f.Refine.RewrittenSinceReview,

		Reviews:               []reportVerdict{},
		ChangesRequestedBy:    list(f.Reviews.ChangesRequestedBy),
		Approvals:             list(f.Reviews.Approvals),
		StaleApprovals:        list(f.Reviews.StaleApprovals),
		PendingReviewRequests: list(f.Reviews.PendingRequests),
		AwaitingReRequest:     list(f.Reviews.AwaitingReRequest),

		Commits: []reportCommit{},
		CI: reportCI{
			Total:           f.CI.Total,
			Passed:          f.CI.Passed,
			Failed:          f.CI.Failed,
			Cancelled:       f.CI.Cancelled,
			Pending:         f.CI.Pending,
			FailedChecks:    reportChecks(f.CI.FailedChecks),
			CancelledChecks: reportChecks(f.CI.CancelledChecks),
			PendingChecks:   reportChecks(f.CI.PendingChecks),
		},
		Threads: reportThreads{
			NeedsAction:     len(f.Threads.NeedsAction),
			ReviewerReplied: len(f.Threads.ReviewerReplied),
			WaitingForReply: len(f.Threads.Waiting),
			Resolved:        len(f.Threads.Resolved),
			Unresolved:      []reportThread{},
		},
		RateLimit: reportRateLimit{
			Cost:      f.RateLimit.Cost,
			Remaining: f.RateLimit.Remaining,
			Limit:     f.RateLimit.Limit,
			ResetAt:   utcPtr(&f.RateLimit.ResetAt),
		},
		CheckedAt: f.DerivedAt.UTC(),
	}
	if f.ReviewDecision != "" {
		d := f.ReviewDecision
		r.ReviewDecision = &d
	}
	r.Attentions = make([]reportAttention, 0, len(f.Attentions))
	for _, a := range f.Attentions {
		r.Attentions = append(r.Attentions, newReportAttention(a))
	}
	for _, v := range f.Reviews.Latest {
		r.Reviews = append(r.Reviews, reportVerdict{
			Reviewer:    v.Reviewer,
			IsBot:       v.IsBot,
			State:       string(v.State),
			SubmittedAt: v.SubmittedAt.UTC(),
			CommitOID:   v.CommitOID,
			OnHead:      v.OnHead,
		})
	}
	for _, c := range f.Commits {
		r.Commits = append(r.Commits, reportCommit{
			OID:         c.OID,
			Headline:    c.Headline,
			Kind:        string(c.Kind),
			AuthoredAt:  c.AuthoredDate.UTC(),
			CommittedAt: c.CommittedDate.UTC(),
		})
	}
	for _, group := range [][]prstatus.ThreadFact{f.Threads.NeedsAction, f.Threads.ReviewerReplied, f.Threads.Waiting} {
		for _, t := range group {
			r.Threads.Unresolved = append(r.Threads.Unresolved, reportThread{
				ID:         t.ID,
				Status:     string(t.Status),
				Path:       t.Path,
				Line:       t.Line,
				IsOutdated: t.IsOutdated,
				Reviewer:   t.Reviewer,
				LastAuthor: t.Last.Author.Login,
				Comments:   t.TotalComments,
				URL:        t.First.URL,
				Excerpt:    clip(oneLine(t.First.Body), excerptRunes),
			})
		}
	}
	return r
}

func newReportAttention(a prstatus.Attention) reportAttention {
	return reportAttention{
		Kind:      string(a.Kind),
		Reason:    a.Reason,
		Key:       a.Key,
		ThreadIDs: list(a.ThreadIDs),
		Checks:    list(a.Checks),
		Reviewers: list(a.Reviewers),
	}
}

func reportChecks(cs []prstatus.CheckFact) []reportCheck {
	out := make([]reportCheck, 0, len(cs))
	for _, c := range cs {
		out = append(out, reportCheck{Name: c.Name, Workflow: c.Workflow, Result: c.Result, Required: c.Required, URL: c.URL})
	}
	return out
}

// list returns a copy of s that is never nil, so that JSON shows [] rather than null.
func list(s []string) []string {
	return append(make([]string, 0, len(s)), s...)
}

// utcPtr returns t in UTC, or nil when t is nil or zero.
func utcPtr(t *time.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
