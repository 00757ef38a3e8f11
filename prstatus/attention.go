package prstatus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// deriveAttentions lists every attention that matches, in decision order (docs/architecture.md#the-decision-order). Merged and
// closed end the list on their own; none appears only when nothing else matched. It reads the
// facts derived before it and never the raw snapshot, so the decision is exactly what `check`
// prints.
func deriveAttentions(f *Facts, merged, closed bool) []Attention {
	head := f.HeadSHA
	if merged {
		return []Attention{{Kind: AttentionMerged, Reason: "the pull request was merged", Key: key(AttentionMerged, head, nil)}}
	}
	if closed {
		return []Attention{{Kind: AttentionClosed, Reason: "the pull request was closed without merging", Key: key(AttentionClosed, head, nil)}}
	}
	var out []Attention
	if f.Refine.NeedsRefine {
		out = append(out, changesRequested(f))
	}
	if len(f.Threads.NeedsAction) > 0 {
		out = append(out, newComments(f))
	}
	if len(f.Threads.ReviewerReplied) > 0 {
		out = append(out, reviewerReplied(f))
	}
	if f.Mergeable == MergeableConflict {
		out = append(out, Attention{
			Kind:   AttentionMergeConflict,
			Reason: fmt.Sprintf("%s conflicts with %s and must be rebased or merged", orDefault(f.HeadRef, "the branch"), orDefault(f.BaseRef, "the base branch")),
			Key:    key(AttentionMergeConflict, head, nil),
		})
	}
	if f.CI.Failed > 0 {
		a := ciAttention(AttentionCIFailed, f, f.CI.FailedChecks, "failed")
		if f.CI.FailingOnBaseOnly() {
			a.Reason += fmt.Sprintf("; failing on the tip of %s (%s) too: not this pull request's failure",
				orDefault(f.BaseRef, "the base branch"), orDefault(text.ShortSHA(f.BaseSHA), "its tip"))
		}
		out = append(out, a)
	}
	if f.CI.Cancelled > 0 {
		out = append(out, ciAttention(AttentionCICancelled, f, f.CI.CancelledChecks, "were cancelled"))
	}
	if a, ok := mergeWhenReady(f); ok {
		out = append(out, a)
	}
	if f.CI.Pending > 0 || f.CI.NotStarted() {
		out = append(out, ciPending(f))
	}
	if a, ok := readyToMerge(f); ok {
		out = append(out, a)
	}
	if a, ok := staleApproval(f); ok {
		out = append(out, a)
	}
	if len(out) == 0 {
		out = append(out, Attention{Kind: AttentionNone, Reason: noneReason(f), Key: key(AttentionNone, head, nil)})
	}
	return out
}

func changesRequested(f *Facts) Attention {
	var threads []string
	for _, list := range [][]ThreadFact{f.Threads.NeedsAction, f.Threads.ReviewerReplied} {
		for _, t := range list {
			if slices.ContainsFunc(f.Reviews.ChangesRequestedBy, func(r string) bool { return sameLogin(r, t.Reviewer) }) {
				threads = append(threads, t.ID)
			}
		}
	}
	return Attention{
		Kind:      AttentionChangesRequested,
		Reason:    f.Refine.Reason,
		Key:       key(AttentionChangesRequested, f.HeadSHA, []string{f.Refine.Round}),
		ThreadIDs: sortedUnique(threads),
		Reviewers: slices.Clone(f.Reviews.ChangesRequestedBy),
	}
}

func newComments(f *Facts) Attention {
	list := f.Threads.NeedsAction
	ids, reviewers := threadIDs(list), threadReviewers(list)
	return Attention{
		Kind: AttentionNewComments,
		Reason: text.Count(len(list), "unresolved thread needs", "unresolved threads need") + " action: " +
			describeThreads(list, func(t ThreadFact) string { return t.Reviewer }),
		Key:       key(AttentionNewComments, f.HeadSHA, ids),
		ThreadIDs: ids,
		Reviewers: reviewers,
	}
}

func reviewerReplied(f *Facts) Attention {
	list := f.Threads.ReviewerReplied
	ids := threadIDs(list)
	keyIDs := make([]string, len(list))
	for i, t := range list {
		// The newest comment's id is part of the key: a second reply raises the thread again.
		keyIDs[i] = t.ID + "/" + lastCommentID(t)
	}
	return Attention{
		Kind: AttentionReviewerReplied,
		Reason: "a reviewer wrote again after our answer in " + text.Count(len(list), "thread", "threads") + ": " +
			describeThreads(list, func(t ThreadFact) string { return reviewerLogin(t.Last().Author) }),
		Key:       key(AttentionReviewerReplied, f.HeadSHA, keyIDs),
		ThreadIDs: ids,
		Reviewers: threadReviewers(list),
	}
}

func ciAttention(kind AttentionKind, f *Facts, checks []CheckFact, verb string) Attention {
	names := make([]string, len(checks))
	keyIDs := make([]string, len(checks))
	for i, c := range checks {
		names[i] = c.DisplayName()
		keyIDs[i] = c.keyID()
	}
	shown := sortedUnique(names)
	list := shortList(shown)
	return Attention{
		Kind:   kind,
		Reason: fmt.Sprintf("%d of %d checks on %s %s: %s", len(checks), f.CI.Total, orDefault(text.ShortSHA(f.HeadSHA), "the head"), verb, list),
		Key:    key(kind, f.HeadSHA, keyIDs),
		Checks: shown,
	}
}

// ciPending is the attention of checks that run, or that have not started: required checks that
// have not reported (an empty rollup with required checks is "waiting for checks to start", never
// a question), the grace after a push for checks to register, or GitHub's block with no check
// reported.
func ciPending(f *Facts) Attention {
	head := orDefault(text.ShortSHA(f.HeadSHA), "the head")
	if f.CI.Pending > 0 {
		a := ciAttention(AttentionCIPending, f, f.CI.PendingChecks, "are still running")
		if n := len(f.CI.Missing); n > 0 {
			a.Reason += fmt.Sprintf("; %s not reported yet", text.Count(n, "required check has", "required checks have"))
			a.Checks = sortedUnique(append(a.Checks, f.CI.Missing...))
			a.Key = key(AttentionCIPending, f.HeadSHA, append(pendingKeyIDs(f.CI.PendingChecks), expectedKeyIDs(f.CI.Missing)...))
		}
		return a
	}
	var reason string
	switch {
	case len(f.CI.Missing) > 0:
		// The names are in Checks: a check's name is GitHub text, kept out of the sentence.
		reason = fmt.Sprintf("waiting for checks to start: %s not reported on %s",
			text.Count(len(f.CI.Missing), "required check has", "required checks have"), head)
	case !f.CI.GraceUntil.IsZero():
		reason = fmt.Sprintf("waiting for checks to register on %s: it was pushed moments ago and no check has reported yet (until %s)",
			head, f.CI.GraceUntil.UTC().Format(timeFormat))
	default:
		reason = fmt.Sprintf("waiting for checks to start on %s: none has reported, and GitHub blocks the merge", head)
	}
	return Attention{
		Kind:   AttentionCIPending,
		Reason: reason,
		Key:    key(AttentionCIPending, f.HeadSHA, expectedKeyIDs(f.CI.Missing)),
		Checks: slices.Clone(f.CI.Missing),
	}
}

func pendingKeyIDs(checks []CheckFact) []string {
	out := make([]string, len(checks))
	for i, c := range checks {
		out[i] = c.keyID()
	}
	return out
}

func expectedKeyIDs(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "expected:" + n
	}
	return out
}

// shortList names at most five, then counts the rest.
func shortList(names []string) string {
	shown := sortedUnique(names)
	if len(shown) > 5 {
		return JoinNames(append(shown[:5:5], fmt.Sprintf("%d more", len(shown)-5)))
	}
	return JoinNames(shown)
}

// readyToMerge is the only attention that can lead to a merge, so every condition is checked here
// again, whatever matched above it: a reviewer's standing request for changes always blocks, even
// once a fix has landed and needs_refine is false, until that reviewer approves or is dismissed.
// Mergeability must be MERGEABLE: UNKNOWN (GitHub has not computed it) decides nothing. CI must be
// green, which includes every required check having reported on the head and passed. While GitHub
// blocks the merge for a rule the snapshot shows (unresolved conversations, a code owner's
// review), nobody is asked yet; when it blocks it for a reason the snapshot does not show, the
// reason says so.
func readyToMerge(f *Facts) (Attention, bool) {
	if !approvedAndOpen(f) || !f.CI.Green() || f.MergingByGitHub() {
		return Attention{}, false
	}
	reason := fmt.Sprintf("approved by %s on %s and CI is green (%d/%d checks passed)",
		JoinNames(f.Reviews.Approvals), orDefault(text.ShortSHA(f.HeadSHA), "the head"), f.CI.Passed, f.CI.Total)
	var warn []string
	if n := len(f.Threads.Waiting); n > 0 {
		warn = append(warn, text.Count(n, "thread waits", "threads wait")+" for a reviewer's reply (the repository may require resolved conversations)")
	}
	if len(f.Reviews.PendingRequests) > 0 {
		warn = append(warn, "a review is still requested from "+JoinNames(f.Reviews.PendingRequests))
	}
	if note := fromOthersNote(f); note != "" {
		warn = append(warn, note)
	}
	if len(f.Blocked) > 0 {
		warn = append(warn, blockedNote(f))
	}
	if len(warn) > 0 {
		reason += "; but " + strings.Join(warn, ", and ")
	}
	return Attention{
		Kind:      AttentionReadyToMerge,
		Reason:    reason,
		Key:       key(AttentionReadyToMerge, f.HeadSHA, f.Reviews.Approvals),
		ThreadIDs: threadIDs(f.Threads.Waiting),
		Reviewers: slices.Clone(f.Reviews.Approvals),
	}, true
}

// RequiredStillToPass counts the required checks that run, or have not reported, on the head.
func RequiredStillToPass(f *Facts) int {
	n := len(f.CI.Missing)
	for _, c := range f.CI.PendingChecks {
		if c.Required {
			n++
		}
	}
	return n
}

// approvedAndOpen is what readiness asks of everything but the checks: open, not a draft,
// mergeable (UNKNOWN decides nothing), no thread needing action, no standing request for
// changes, an approval, GitHub's review decision not against it, and no rule the snapshot shows
// holding the merge.
func approvedAndOpen(f *Facts) bool {
	return f.State != StateMerged && f.State != StateClosed &&
		!f.IsDraft &&
		f.Mergeable == MergeableYes &&
		len(f.Threads.NeedsAction)+len(f.Threads.ReviewerReplied) == 0 &&
		len(f.Reviews.ChangesRequestedBy) == 0 &&
		len(f.Reviews.Approvals) > 0 &&
		(f.ReviewDecision == "" || f.ReviewDecision == "APPROVED") &&
		!heldByRule(f)
}

// mergeWhenReady: approved with only required checks still to pass (running, or not reported
// yet), nothing failed, on a repository that allows auto-merge, and GitHub not merging it already:
// the user may have GitHub merge it by itself once they pass. Only required checks hold GitHub's
// auto-merge (it would merge at once past checks that are not), and only they hold it again after
// a push, until the server turns it off. The grace after a push for checks to register is no such
// wait either.
func mergeWhenReady(f *Facts) (Attention, bool) {
	ci := f.CI
	waiting := RequiredStillToPass(f)
	ok := f.AutoMergeAllowed && !f.MergingByGitHub() && approvedAndOpen(f) && ci.Failed == 0 && ci.Cancelled == 0 && waiting > 0
	if !ok {
		return Attention{}, false
	}
	return Attention{
		Kind: AttentionMergeWhenReady,
		Reason: fmt.Sprintf("approved by %s on %s with %s still to pass; the repository allows auto-merge",
			JoinNames(f.Reviews.Approvals), orDefault(text.ShortSHA(f.HeadSHA), "the head"), text.Plural(waiting, "required check", "required checks")),
		Key:       key(AttentionMergeWhenReady, f.HeadSHA, f.Reviews.Approvals),
		Reviewers: slices.Clone(f.Reviews.Approvals),
	}, true
}

func staleApproval(f *Facts) (Attention, bool) {
	ok := f.CI.Green() &&
		!f.IsDraft &&
		f.Mergeable != MergeableConflict &&
		len(f.Reviews.ChangesRequestedBy) == 0 &&
		len(f.Reviews.Approvals) == 0 &&
		len(f.Reviews.StaleApprovals) > 0
	if !ok {
		return Attention{}, false
	}
	stale := f.Reviews.StaleApprovals
	return Attention{
		Kind: AttentionStaleApproval,
		Reason: fmt.Sprintf("CI is green on %s but the %s from %s %s on an older commit; a new approval is needed",
			orDefault(text.ShortSHA(f.HeadSHA), "the head"), text.Plural(len(stale), "approval", "approvals"), JoinNames(stale), text.Plural(len(stale), "is", "are")),
		Key:       key(AttentionStaleApproval, f.HeadSHA, stale),
		Reviewers: slices.Clone(stale),
	}, true
}

// noneReason explains why the monitor simply keeps polling.
func noneReason(f *Facts) string {
	var why []string
	if f.IsDraft {
		why = append(why, "the pull request is a draft")
	}
	switch f.Mergeable {
	case MergeableUnknown:
		why = append(why, "GitHub is still computing mergeability")
	case "":
		why = append(why, "mergeability is not known yet")
	}
	if cr := f.Reviews.ChangesRequestedBy; len(cr) > 0 {
		s := "waiting for " + JoinNames(cr) + " to re-review"
		if len(f.Reviews.AwaitingReRequest) > 0 {
			s += " (review not yet re-requested from " + JoinNames(f.Reviews.AwaitingReRequest) + ")"
		}
		why = append(why, s)
	} else if len(f.Reviews.Approvals) == 0 && len(f.Reviews.StaleApprovals) == 0 {
		if len(f.Reviews.PendingRequests) > 0 {
			why = append(why, "waiting for review from "+JoinNames(f.Reviews.PendingRequests))
		} else {
			why = append(why, "waiting for review")
		}
	}
	switch d := f.ReviewDecision; d {
	case "", "APPROVED":
	case "REVIEW_REQUIRED":
		why = append(why, "approvals required: the base branch requires an approving review from a reviewer with write access")
	default:
		why = append(why, "GitHub's review decision is "+strings.ToLower(strings.ReplaceAll(d, "_", " ")))
	}
	if n := len(f.Threads.Waiting); n > 0 {
		why = append(why, text.Count(n, "thread waits", "threads wait")+" for a reviewer's reply")
	}
	if note := fromOthersNote(f); note != "" {
		why = append(why, note)
	}
	if len(f.Blocked) > 0 {
		why = append(why, blockedNote(f))
	}
	if note := MergingNote(f); note != "" {
		why = append(why, note)
	}
	if len(why) == 0 {
		return "nothing needs attention"
	}
	return "nothing to do yet: " + strings.Join(why, "; ")
}

// MergingNote says in one clause how GitHub is merging the pull request by itself ("" when it is
// not): auto-merge is on, or it waits in the merge queue.
func MergingNote(f *Facts) string {
	switch {
	case f.InMergeQueue:
		return "it is in the merge queue: GitHub merges it once the queue's checks pass"
	case f.AutoMerge != nil:
		return "auto-merge is on: GitHub merges it once every requirement is met"
	}
	return ""
}

// blockedNote explains GitHub's BLOCKED merge state in one clause.
func blockedNote(f *Facts) string {
	return "GitHub blocks the merge: " + strings.Join(f.Blocked, "; ")
}

// fromOthersNote mentions the feedback of people who cannot review: shown, not acted on.
func fromOthersNote(f *Facts) string {
	var parts []string
	if n := len(f.Reviews.FromOthers); n > 0 {
		parts = append(parts, text.Count(n, "review", "reviews"))
	}
	if n := len(f.Threads.FromOthers); n > 0 {
		parts = append(parts, text.Count(n, "thread", "threads"))
	}
	if len(parts) == 0 {
		return ""
	}
	return JoinNames(parts) + " from someone who cannot review (shown, not acted on)"
}

// key builds an attention key: kind@head, then the sorted, de-duplicated ids involved.
func key(kind AttentionKind, head string, ids []string) string {
	k := string(kind) + "@" + head
	if ids := sortedUnique(ids); len(ids) > 0 {
		k += ":" + strings.Join(ids, ",")
	}
	return k
}

// describeThreads renders "bob on api.go:12, carol on db.go and 4 more" (at most three named).
func describeThreads(list []ThreadFact, who func(ThreadFact) string) string {
	var places []string
	for i, t := range list {
		if i == 3 {
			places = append(places, fmt.Sprintf("%d more", len(list)-3))
			break
		}
		places = append(places, who(t)+" on "+t.Where())
	}
	return JoinNames(places)
}

func threadIDs(list []ThreadFact) []string {
	ids := make([]string, 0, len(list))
	for _, t := range list {
		ids = append(ids, t.ID)
	}
	return sortedUnique(ids)
}

func threadReviewers(list []ThreadFact) []string {
	names := make([]string, 0, len(list))
	for _, t := range list {
		names = append(names, t.Reviewer)
	}
	return sortedUnique(names)
}
