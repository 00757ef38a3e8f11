package rounds

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Verdict is what a reviewer said about one attempt: the record a later refine or address task
// carries as its "prior attempt" (docs/architecture.md#memory-across-review-rounds). It holds the reviewer's words and never the attempt
// itself: no diff, no patch, no code of the branch (docs/decisions/0001-prior-verdicts-not-diffs.md).
type Verdict struct {
	Reviewer string               `json:"reviewer"`
	Approved bool                 `json:"approved"`
	State    prstatus.ReviewState `json:"state"`
	// Feedback is verbatim: the review's body, then the first comment of each thread the review
	// opened, labelled with its path:line. Untrusted text from GitHub, like any comment.
	Feedback  string    `json:"feedback"`
	Round     string    `json:"round,omitempty"`
	At        time.Time `json:"at"`
	Branch    string    `json:"branch"`
	ReviewID  string    `json:"review_id,omitempty"`
	CommitOID string    `json:"commit_oid,omitempty"`
}

// MaxFeedbackBytes caps a verdict's feedback, so the monitor's persisted memory stays bounded even
// when a review is enormous. Ordinary reviews are far below it and are kept whole; a cut is
// marked.
const MaxFeedbackBytes = 16 << 10

// VerdictsSince returns, oldest first, the reviews submitted strictly after since by anyone but
// the PR's side (its author and the token's user): every verdict (APPROVED, CHANGES_REQUESTED,
// DISMISSED) and every COMMENTED review with feedback. A review's feedback takes in the threads it
// opened after since. round is recorded on each; Branch is the head ref. The state machine calls
// it when a refine or address round ends, with since the start of that round.
func VerdictsSince(f *prstatus.Facts, since time.Time, round string) []Verdict {
	if f == nil {
		return nil
	}
	hist := slices.Clone(f.Reviews.History)
	slices.SortStableFunc(hist, func(a, b prstatus.ReviewerVerdict) int {
		return cmp.Or(a.SubmittedAt.Compare(b.SubmittedAt), strings.Compare(a.ReviewID, b.ReviewID))
	})
	opened := make([][]*prstatus.ThreadFact, len(hist))
	prstatus.AttributeThreads(hist, f.Threads, func(review int, t *prstatus.ThreadFact) {
		// Feedback on the attempt is written after it: an older thread belongs to an earlier
		// review, even when that review has fallen off the snapshot's page of reviews.
		if t.First().CreatedAt.After(since) {
			opened[review] = append(opened[review], t)
		}
	})
	for _, ts := range opened {
		slices.SortFunc(ts, func(a, b *prstatus.ThreadFact) int { return prstatus.CompareThreads(*a, *b) })
	}
	var out []Verdict
	for i, v := range hist {
		if !v.SubmittedAt.After(since) || !v.State.Submitted() || prstatus.IsUs(v.Reviewer, f.Author, f.Viewer) {
			continue
		}
		feedback := feedbackOf(v.Body, opened[i])
		if v.State == prstatus.ReviewCommented && feedback == "" {
			continue
		}
		out = append(out, Verdict{
			Reviewer:  v.Reviewer,
			Approved:  v.State == prstatus.ReviewApproved,
			State:     v.State,
			Feedback:  feedback,
			Round:     round,
			At:        v.SubmittedAt,
			Branch:    f.HeadRef,
			ReviewID:  v.ReviewID,
			CommitOID: v.CommitOID,
		})
	}
	return out
}

// feedbackOf joins a review's body and the first comments of the threads it opened, verbatim,
// each thread labelled with where it is. Empty when there is nothing but whitespace.
func feedbackOf(body string, threads []*prstatus.ThreadFact) string {
	var b strings.Builder
	if strings.TrimSpace(body) != "" {
		b.WriteString(body)
	}
	for _, t := range threads {
		if strings.TrimSpace(t.First().Body) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("[" + t.Where() + "]\n")
		b.WriteString(t.First().Body)
		if b.Len() > MaxFeedbackBytes {
			break
		}
	}
	return capFeedback(b.String())
}

// capFeedback cuts feedback longer than MaxFeedbackBytes on a rune boundary and says so.
func capFeedback(s string) string {
	if len(s) <= MaxFeedbackBytes {
		return s
	}
	const note = "\n[feedback truncated]"
	cut := MaxFeedbackBytes - len(note)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}
