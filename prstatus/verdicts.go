package prstatus

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Verdict is what a reviewer said about one attempt: the record a later refine or address task
// carries as its "prior attempt" (DESIGN §9). It holds the reviewer's words and never the attempt
// itself: no diff, no patch, no code of the branch (docs/decisions/0001-prior-verdicts-not-diffs.md).
type Verdict struct {
	Reviewer string      `json:"reviewer"`
	Approved bool        `json:"approved"`
	State    ReviewState `json:"state"`
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
func VerdictsSince(f *Facts, since time.Time, round string) []Verdict {
	if f == nil {
		return nil
	}
	hist := slices.Clone(f.Reviews.History)
	slices.SortStableFunc(hist, func(a, b ReviewerVerdict) int {
		return cmp.Or(a.SubmittedAt.Compare(b.SubmittedAt), strings.Compare(a.ReviewID, b.ReviewID))
	})
	opened := make([][]*ThreadFact, len(hist))
	attributeThreads(hist, f.Threads, func(review int, t *ThreadFact) {
		// Feedback on the attempt is written after it: an older thread belongs to an earlier
		// review, even when that review has fallen off the snapshot's page of reviews.
		if t.First().CreatedAt.After(since) {
			opened[review] = append(opened[review], t)
		}
	})
	for _, ts := range opened {
		slices.SortFunc(ts, func(a, b *ThreadFact) int { return compareThreads(*a, *b) })
	}
	var out []Verdict
	for i, v := range hist {
		if !v.SubmittedAt.After(since) || !submitted(v.State) || sameLogin(v.Reviewer, f.Author) || sameLogin(v.Reviewer, f.Viewer) {
			continue
		}
		feedback := feedbackOf(v.Body, opened[i])
		if v.State == ReviewCommented && feedback == "" {
			continue
		}
		out = append(out, Verdict{
			Reviewer:  v.Reviewer,
			Approved:  v.State == ReviewApproved,
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

// submitted reports whether a review in this state was submitted: PENDING is a draft, and a state
// GitHub may add later is not trusted.
func submitted(s ReviewState) bool { return s.Opinionated() || s == ReviewCommented }

// reviewHistory lists every submitted review but the PR author's, oldest first: the verdicts,
// and the COMMENTED reviews that say something (a body, or a thread they opened).
func reviewHistory(s *Snapshot, threads ThreadFacts) []ReviewerVerdict {
	reviews := make([]Review, 0, len(s.Reviews))
	for _, r := range s.Reviews {
		if submitted(r.State) && !sameLogin(r.Author.Login, s.Author.Login) {
			reviews = append(reviews, r)
		}
	}
	slices.SortFunc(reviews, compareReviews)
	all := make([]ReviewerVerdict, len(reviews))
	for i, r := range reviews {
		all[i] = reviewAsVerdict(r, s.HeadOID)

	}
	opened := make([]bool, len(all))
	attributeThreads(all, threads, func(review int, _ *ThreadFact) { opened[review] = true })
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

// attributeThreads gives each thread to the review that opened it: the reviewer's earliest review
// submitted at or after the thread's first comment. The snapshot does not link a comment to its
// review, but a review's comments are written before (or as) it is submitted, and a reply written
// while a review is pending joins that review. A thread older than the snapshot's page of reviews
// falls to the oldest review there. hist must be oldest first; threads come list by list.
func attributeThreads(hist []ReviewerVerdict, threads ThreadFacts, opened func(review int, t *ThreadFact)) {
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

// feedbackOf joins a review's body and the first comments of the threads it opened, verbatim,
// each thread labelled with where it is. Empty when there is nothing but whitespace.
func feedbackOf(body string, threads []*ThreadFact) string {
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
		b.WriteString("[" + t.where() + "]\n")
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
