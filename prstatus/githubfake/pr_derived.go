package githubfake

import (
	"slices"
	"strings"
)

// What GitHub computes from a pull request's data: the review decision, the merge state
// status, the latest reviews per reviewer, the check rollup. Shared by GraphQL and REST.

// latestReviews is each reviewer's latest review that passes keep, in the order reviewers first
// reviewed (GitHub orders these connections by reviewer, not by time).
func latestReviews(pr *PullRequest, keep func(*Review) bool) []*Review {
	var order []string
	latest := map[string]*Review{}
	for _, r := range pr.Reviews {
		if !keep(r) {
			continue
		}
		key := string(r.Author.Type) + ":" + strings.ToLower(r.Author.Login)
		if _, seen := latest[key]; !seen {
			order = append(order, key)
		}
		latest[key] = r
	}
	out := make([]*Review, 0, len(order))
	for _, k := range order {
		out = append(out, latest[k])
	}
	return out
}

// latestOpinionated is GitHub's latestOpinionatedReviews: the latest APPROVED, CHANGES_REQUESTED
// or DISMISSED review per reviewer; a later COMMENTED review does not override it.
func latestOpinionated(pr *PullRequest) []*Review {
	return latestReviews(pr, func(r *Review) bool {
		return r.State == ReviewStateApproved || r.State == ReviewStateChangesRequested || r.State == ReviewStateDismissed
	})
}

// latestSubmitted is GitHub's latestReviews: the latest review per reviewer that is not pending.
func latestSubmitted(pr *PullRequest) []*Review {
	return latestReviews(pr, func(r *Review) bool { return r.State != ReviewStatePending })
}

// reviewDecision is GitHub's reviewDecision; ok is false for null (no review rule on the base).
// Only the reviews of people with write access count, as on GitHub: an approval or a request for
// changes by anyone else (a CONTRIBUTOR, NONE, a bot) is listed but decides nothing.
func (f *Fake) reviewDecision(pr *PullRequest) (string, bool) {
	if pr.ReviewDecision != "" {
		return pr.ReviewDecision, true
	}
	rules, _ := baseRules(pr)
	need := max(pr.RequiredApprovals, rules.RequiredApprovals)
	if need <= 0 {
		return "", false
	}
	approvals := 0
	for _, r := range latestOpinionated(pr) {
		if !f.canWrite(r.Author) {
			continue
		}
		switch r.State {
		case ReviewStateChangesRequested:
			return "CHANGES_REQUESTED", true
		case ReviewStateApproved:
			approvals++
		}
	}
	if approvals >= need {
		return "APPROVED", true
	}
	return "REVIEW_REQUIRED", true
}

// outcome buckets a check for the rollup.
type outcome int

const (
	outcomeSuccess outcome = iota
	outcomePending
	outcomeFailure
)

func (c *CheckRun) outcome() outcome {
	if c.Status != StatusCompleted {
		return outcomePending
	}
	switch c.Conclusion {
	case ConclusionSuccess, ConclusionNeutral, ConclusionSkipped:
		return outcomeSuccess
	}
	return outcomeFailure
}

func (s *StatusContext) outcome() outcome {
	switch s.State {
	case StateSuccess:
		return outcomeSuccess
	case StatePending, StateExpected:
		return outcomePending
	}
	return outcomeFailure
}

// rollupState is StatusCheckRollup.state of a commit; ok is false when it has no checks at all
// (GitHub returns a null rollup then: right after a push, before any check registered). Every run
// in the rollup votes, superseded ones too.
func rollupState(c *Commit) (string, bool) {
	if c == nil || len(c.CheckRuns)+len(c.Statuses)+len(c.Superseded) == 0 {
		return "", false
	}
	failed, pending, errored := false, false, false
	for _, cr := range slices.Concat(c.Superseded, c.CheckRuns) {
		switch cr.outcome() {
		case outcomeFailure:
			failed = true
		case outcomePending:
			pending = true
		}
	}
	for _, s := range c.Statuses {
		switch s.outcome() {
		case outcomeFailure:
			if s.State == StateError {
				errored = true
			} else {
				failed = true
			}
		case outcomePending:
			pending = true
		}
	}
	switch {
	case failed:
		return StateFailure, true
	case errored:
		return StateError, true
	case pending:
		return StatePending, true
	}
	return StateSuccess, true
}

// mergeStateStatus is GitHub's mergeStateStatus, unless the PR overrides it.
func (f *Fake) mergeStateStatus(pr *PullRequest) string {
	if pr.MergeStateStatus != "" {
		return pr.MergeStateStatus
	}
	if pr.State != PRStateOpen {
		return "UNKNOWN"
	}
	if pr.IsDraft {
		return "DRAFT"
	}
	switch pr.Mergeable {
	case MergeableStateConflicting:
		return "DIRTY"
	case MergeableStateUnknown, "":
		return "UNKNOWN"
	}
	if d, ok := f.reviewDecision(pr); ok && d != "APPROVED" {
		return "BLOCKED"
	}
	if rules, _ := baseRules(pr); len(requiredNotPassing(pr)) > 0 ||
		(rules.ConversationResolution && unresolvedThreads(pr) > 0) || (rules.CodeOwnerReviews && codeOwnerPending(pr)) {
		return "BLOCKED"
	}
	unstable := false
	if head := pr.Head(); head != nil {
		for _, cr := range head.CheckRuns {
			if o := cr.outcome(); o != outcomeSuccess {
				if cr.IsRequired {
					return "BLOCKED"
				}
				unstable = true
			}
		}
		for _, s := range head.Statuses {
			if o := s.outcome(); o != outcomeSuccess {
				if s.IsRequired {
					return "BLOCKED"
				}
				unstable = true
			}
		}
	}
	if pr.Behind {
		return "BEHIND"
	}
	if unstable {
		return "UNSTABLE"
	}
	return "CLEAN"
}

// commitByOID finds one of the PR's commits, or a bare stand-in for a commit outside the PR
// (the base, an old head).
func commitByOID(pr *PullRequest, oid string) *Commit {
	for _, c := range pr.Commits {
		if c.OID == oid {
			return c
		}
	}
	return &Commit{OID: oid, pr: pr}
}

// visibleReviews is the review history as the viewer sees it: others' pending reviews are hidden.
func visibleReviews(pr *PullRequest, viewer Actor) []*Review {
	out := make([]*Review, 0, len(pr.Reviews))
	for _, r := range pr.Reviews {
		if r.State == ReviewStatePending && !sameActor(r.Author, viewer) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func sameActor(a, b Actor) bool {
	return a.Type == b.Type && strings.EqualFold(a.Login, b.Login)
}

// canWrite reports whether GitHub counts a's reviews toward the review decision: the author is an
// owner, a member or a collaborator.
func (f *Fake) canWrite(a Actor) bool {
	switch f.association(a) {
	case "OWNER", "MEMBER", "COLLABORATOR":
		return true
	}
	return false
}
