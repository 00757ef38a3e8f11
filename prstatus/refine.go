package prstatus

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// deriveRefine applies the needs-refine rule (docs/needs-refine.md): changes are
// requested and no commit authored after the newest request exists yet.
//
// Author dates, not committer dates: a rebase onto a newer base rewrites every committer date and
// must not look like an answer. The price is that an amend or a fixup squash that keeps an old
// author date does not look like one either; RewrittenSinceReview flags that case so the monitor
// asks the user instead of firing the same round again.
func deriveRefine(open bool, verdicts []ReviewerVerdict, commits []CommitFact) RefineFacts {
	var rf RefineFacts
	var requesters []string
	var crAt time.Time
	for _, v := range verdicts {
		if v.State != ReviewChangesRequested {
			continue
		}
		requesters = append(requesters, v.Reviewer)
		if v.ReviewID != "" {
			rf.ReviewIDs = append(rf.ReviewIDs, v.ReviewID)
		}
		if v.SubmittedAt.After(crAt) {
			crAt = v.SubmittedAt
		}
	}
	slices.Sort(rf.ReviewIDs)

	answer := newestAnswer(commits)
	if answer >= 0 {
		at := commits[answer].AuthoredDate
		rf.LastSubstantiveCommitAt = &at
	}
	if len(requesters) == 0 {
		rf.Reason = "no reviewer's latest verdict requests changes"
		if !open {
			rf.Reason = "the pull request is not open and no reviewer's latest verdict requests changes"
		}
		return rf
	}
	rf.LastChangesRequestedAt = &crAt
	rf.Round = roundID(crAt, requesters)

	merges, rewritten := 0, 0
	for _, c := range commits {
		if !c.CommittedDate.After(crAt) {
			continue
		}
		switch {
		case c.Kind == CommitMerge:
			merges++
		case c.AuthoredDate.Before(crAt):
			rewritten++
		}
	}
	rf.RewrittenSinceReview = rewritten > 0

	who := requestedBy(requesters, crAt)
	switch {
	case !open:
		rf.Reason = fmt.Sprintf("%s; the pull request is not open, so nothing needs answering", who)
	case answer < 0:
		rf.NeedsRefine = true
		rf.Reason = who + "; there is no substantive commit yet" + sinceNote(merges, rewritten)
	case commits[answer].AuthoredDate.Before(crAt):
		rf.NeedsRefine = true
		c := commits[answer]
		rf.Reason = fmt.Sprintf("%s; the newest substantive commit (%s, authored %s) predates it%s",
			who, text.ShortSHA(c.OID), clock(c.AuthoredDate, crAt), sinceNote(merges, rewritten))
	default:
		c := commits[answer]
		rf.Reason = fmt.Sprintf("%s; answered by %s authored %s", who, text.ShortSHA(c.OID), clock(c.AuthoredDate, crAt))
	}
	return rf
}

// roundID names a review round by when its newest request for changes was made and who is asking,
// in the alphabet the reply marker keeps ("2026-11-20T10:00:00Z/alice+bot_bot"), so a round read
// back from a marker compares equal.
func roundID(at time.Time, requesters []string) string {
	names := make([]string, len(requesters))
	for i, r := range requesters {
		// Logins never hold "_", so a bot's "[bot]" suffix stays unambiguous.
		names[i] = clean(strings.ReplaceAll(loginKey(r), "[bot]", "_bot"))
	}
	slices.Sort(names)
	return at.UTC().Format(timeFormat) + "/" + strings.Join(names, "+")
}

// requestedBy renders "bob requested changes at T" or "alice and bob requested changes (newest at T)".
func requestedBy(requesters []string, at time.Time) string {
	if len(requesters) == 1 {
		return requesters[0] + " requested changes at " + at.UTC().Format(timeFormat)
	}
	return JoinNames(requesters) + " requested changes (newest at " + at.UTC().Format(timeFormat) + ")"
}

// sinceNote explains commits after the review that do not count as an answer.
func sinceNote(merges, rewritten int) string {
	var parts []string
	if merges > 0 {
		parts = append(parts, text.Count(merges, "merge commit", "merge commits")+" since do not count")
	}
	if rewritten > 0 {
		parts = append(parts, text.Count(rewritten, "commit was", "commits were")+
			" rewritten since (rebase or amend) and count by their older author dates")
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, "; ")
}

// clock renders t as "15:04" when it falls on the same UTC day as ref, else in full.
func clock(t, ref time.Time) string {
	t, ref = t.UTC(), ref.UTC()
	if t.YearDay() == ref.YearDay() && t.Year() == ref.Year() {
		return t.Format("15:04")
	}
	return t.Format(timeFormat)
}
