package prstatus

import (
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// mergeBlocked is GitHub's merge state when a rule of the base branch holds the merge back.
const mergeBlocked = "BLOCKED"

// blockedBy explains GitHub's BLOCKED merge state from the snapshot, in a few words per cause:
// missing approvals, required checks that have not passed or reported, unresolved conversations,
// a code owner's review. When none of those explains it, the rule is one the token cannot read;
// if moreover no check has reported on the head, that is most likely a required check that has
// not started, and the head does not count as green (CIFacts.Unverified). Empty unless the merge
// state is BLOCKED. It reads the facts derived before it.
func blockedBy(f *Facts) []string {
	if f.MergeStateStatus != mergeBlocked {
		return nil
	}
	var why []string
	approvals := len(f.Reviews.Approvals)
	switch need := f.Rules.RequiredApprovals; {
	case need > approvals:
		why = append(why, fmt.Sprintf("%s required, %d given", text.Count(need, "approving review is", "approving reviews are"), approvals))
	case f.ReviewDecision == "REVIEW_REQUIRED":
		why = append(why, "an approving review from someone with write access is required")
	case f.ReviewDecision == "CHANGES_REQUESTED":
		why = append(why, "a reviewer requested changes")
	}
	if n := len(requiredNotPassed(f)); n > 0 {
		why = append(why, text.Count(n, "required check has", "required checks have")+" not passed")
	}
	if n := unresolvedCount(f); f.Rules.ConversationResolution && n > 0 {
		why = append(why, "every conversation must be resolved first ("+text.Count(n, "thread is", "threads are")+" unresolved)")
	}
	if f.Rules.CodeOwnerReviews && len(f.Reviews.CodeOwnerRequests) > 0 {
		// Who was asked is GitHub text (Reviews.CodeOwnerRequests): counted here, never named.
		why = append(why, "a code owner must approve ("+text.Count(len(f.Reviews.CodeOwnerRequests), "code owner review is", "code owner reviews are")+" requested)")
	}
	if len(why) > 0 {
		return why
	}
	if f.CI.Total == 0 {
		f.CI.Unverified = true
		return []string{"no check has reported on the head yet, and a rule prmonitor cannot read holds the merge (most likely a required check that has not started)"}
	}
	return []string{"a rule prmonitor cannot read holds the merge (a ruleset, signed commits, a deployment, or a branch restriction)"}
}

// requiredNotPassed names the required checks that failed, were cancelled, still run, or have not
// reported, sorted.
func requiredNotPassed(f *Facts) []string {
	names := slices.Clone(f.CI.Missing)
	for _, list := range [][]CheckFact{f.CI.FailedChecks, f.CI.CancelledChecks, f.CI.PendingChecks} {
		for _, c := range list {
			if c.Required {
				names = append(names, c.Name)
			}
		}
	}
	return sortedUnique(names)
}

// unresolvedCount is how many review threads are unresolved, whoever opened them: GitHub's rule
// counts every one.
func unresolvedCount(f *Facts) int {
	t := f.Threads
	return len(t.NeedsAction) + len(t.ReviewerReplied) + len(t.Waiting) + len(t.FromOthers)
}

// heldByRule reports whether GitHub blocks the merge for a rule the snapshot shows and a direct
// merge cannot get past (an administrator's aside): unresolved conversations where the base
// requires them resolved, or a code owner's review still requested. Then nobody is asked to merge
// yet; the waiting text says why. A block the snapshot cannot explain does not stop the question:
// the reason says GitHub may refuse.
func heldByRule(f *Facts) bool {
	if f.MergeStateStatus != mergeBlocked {
		return false
	}
	return (f.Rules.ConversationResolution && unresolvedCount(f) > 0) ||
		(f.Rules.CodeOwnerReviews && len(f.Reviews.CodeOwnerRequests) > 0)
}
