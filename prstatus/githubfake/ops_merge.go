package githubfake

import (
	"fmt"
	"net/http"
	"strings"
)

// mergeRefusal is why a merge was refused, with the REST status GitHub answers.
type mergeRefusal struct {
	status  int
	message string
}

// mergeLocked merges the pull request the way GitHub's merge button does, or refuses. It records
// the attempt and returns the merge hook call to make once the lock is released.
func (f *Fake) mergeLocked(pr *PullRequest, method, sha, title string, via RequestKind) (Merge, *mergeRefusal, func()) {
	m := Merge{At: f.clock.now(), Ref: pr.Ref(), Via: via, Method: method, SHA: sha}
	if m.Method == "" {
		m.Method = "merge"
	}
	refusal := f.mergeCheckLocked(pr, m.Method, sha)
	if refusal != nil {
		m.Refusal = refusal.message
		return m, refusal, f.recordMergeLocked(m)
	}
	now := f.clock.now()
	pr.State = PRStateMerged
	pr.MergedAt = now
	pr.ClosedAt = now
	pr.MergedBy = f.viewer
	if title == "" {
		title = fmt.Sprintf("Merge pull request #%d from %s", pr.Number, pr.HeadRef)
	}
	pr.MergeCommitOID = f.ids.oid(title)
	pr.UpdatedAt = now
	pr.ReviewRequests = nil
	f.afterMergeLocked(pr)
	m.Merged = true
	return m, nil, f.recordMergeLocked(m)
}

func (f *Fake) mergeCheckLocked(pr *PullRequest, method, sha string) *mergeRefusal {
	switch {
	case pr.State != PRStateOpen:
		return &mergeRefusal{http.StatusMethodNotAllowed, "Pull Request is not mergeable"}
	case method != "merge" && method != "squash" && method != "rebase":
		return &mergeRefusal{http.StatusUnprocessableEntity, fmt.Sprintf("Invalid merge_method %q: want merge, squash or rebase", method)}
	case sha != "" && sha != pr.HeadOID():
		return &mergeRefusal{http.StatusConflict, "Head branch was modified. Review and try the merge again."}
	case pr.IsDraft:
		return &mergeRefusal{http.StatusMethodNotAllowed, "Pull Request is still a draft"}
	case pr.MergeRefusal != "":
		return &mergeRefusal{http.StatusMethodNotAllowed, pr.MergeRefusal}
	case pr.Mergeable != MergeableStateMergeable:
		return &mergeRefusal{http.StatusMethodNotAllowed, "Pull Request is not mergeable"}
	case pr.Behind:
		return &mergeRefusal{http.StatusMethodNotAllowed, "Head branch is not up to date with the base branch"}
	}
	rules, queue := baseRules(pr)
	switch {
	case queue:
		return &mergeRefusal{http.StatusMethodNotAllowed, "Repository rule violations found\n\nChanges must be made through the merge queue."}
	case rules.ConversationResolution && unresolvedThreads(pr) > 0:
		return &mergeRefusal{http.StatusMethodNotAllowed, "Repository rule violations found\n\nAll comments must be resolved."}
	case rules.CodeOwnerReviews && codeOwnerPending(pr):
		return &mergeRefusal{http.StatusMethodNotAllowed, "Repository rule violations found\n\nWaiting on code owner review."}
	}
	if d, ok := f.reviewDecision(pr); ok && d != "APPROVED" {
		n := max(pr.RequiredApprovals, 1)
		return &mergeRefusal{http.StatusMethodNotAllowed, fmt.Sprintf(
			"Repository rule violations found\n\nAt least %d approving review%s required by reviewers with write access.", n, plural(n, " is", "s are"))}
	}
	if failing := requiredNotPassing(pr); len(failing) > 0 {
		return &mergeRefusal{http.StatusMethodNotAllowed, fmt.Sprintf(
			"Repository rule violations found\n\nRequired status check%s %q %s not successful.", plural(len(failing), "", "s"),
			strings.Join(failing, ", "), plural(len(failing), "is", "are"))}
	}
	return nil
}

// plural is the word for a count. (The fake keeps its own small text helpers, here and in ids.go and events_reviews.go: it imports no
// prmonitor package but GitHub's schema, so it cannot drift towards what prmonitor believes;
// docs/architecture.md#packages.)
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
