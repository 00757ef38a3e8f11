package githubfake

import "time"

// Lazy mergeability, the base branch's tip, and workflows that register after a push, with the
// fake's lock held.

// mergeabilityTruth is what GitHub will compute the pull request's mergeability to be.
func mergeabilityTruth(pr *PullRequest) MergeableState {
	switch {
	case pr.Computing != "":
		return pr.Computing
	case pr.Mergeable != "" && pr.Mergeable != MergeableStateUnknown:
		return pr.Mergeable
	}
	return MergeableStateMergeable
}

// recomputeMergeabilityLocked is GitHub learning that mergeability must be computed again (a
// push, the base branch moving): with lazy mergeability it reads UNKNOWN until computed as truth;
// without, it is truth at once.
func (f *Fake) recomputeMergeabilityLocked(pr *PullRequest, truth MergeableState) {
	if !f.lazy.On {
		pr.Mergeable, pr.Computing, pr.ComputedAt = truth, "", time.Time{}
		return
	}
	pr.Mergeable, pr.Computing, pr.ComputedAt = MergeableStateUnknown, truth, time.Time{}
	if f.lazy.OnItsOwn > 0 {
		pr.ComputedAt = f.clock.now().Add(f.lazy.OnItsOwn)
	}
}

// askMergeabilityLocked is a REST GET of the pull request: it starts the computation of an
// UNKNOWN mergeability, done LazyMergeability.AfterGet later.
func (f *Fake) askMergeabilityLocked(pr *PullRequest) {
	if pr.Mergeable != MergeableStateUnknown || pr.Computing == "" {
		return
	}
	due := f.clock.now().Add(f.lazy.AfterGet)
	if pr.ComputedAt.IsZero() || pr.ComputedAt.After(due) {
		pr.ComputedAt = due
	}
}

// settleMergeabilityLocked finishes the computations that are due.
func (f *Fake) settleMergeabilityLocked() {
	now := f.clock.now()
	for _, repo := range f.repos {
		for _, pr := range repo.PullRequests {
			if pr.Mergeable == MergeableStateUnknown && pr.Computing != "" && !pr.ComputedAt.IsZero() && !now.Before(pr.ComputedAt) {
				pr.Mergeable, pr.Computing, pr.ComputedAt = pr.Computing, "", time.Time{}
			}
		}
	}
}

// baseTipLocked is the base branch's tip (Ref.target of baseRef): where the branch is now, which
// baseRefOid, the commit the pull request was last built on, lags.
func baseTipLocked(pr *PullRequest) string {
	if t, ok := stackTipLocked(pr.Repo, pr.BaseRef); ok {
		return t
	}
	if t, ok := pr.Repo.Tips[pr.BaseRef]; ok {
		return t
	}
	return pr.BaseOID
}

// pushDue is a workflow that registers on a pushed head later (WorkflowOnPush).
type pushDue struct {
	pr *PullRequest
	c  *Commit
	at time.Time
}

// schedulePushWorkflowLocked registers the push workflow on c after its delay.
func (f *Fake) schedulePushWorkflowLocked(pr *PullRequest, c *Commit) {
	if f.onPush == nil || c == nil {
		return
	}
	f.pushDue = append(f.pushDue, pushDue{pr: pr, c: c, at: f.clock.now().Add(f.onPush.After)})
	if f.onPush.After <= 0 {
		f.settlePushWorkflowsLocked()
	}
}

func (f *Fake) settlePushWorkflowsLocked() {
	if len(f.pushDue) == 0 {
		return
	}
	now := f.clock.now()
	kept := f.pushDue[:0]
	for _, d := range f.pushDue {
		if now.Before(d.at) {
			kept = append(kept, d)
			continue
		}
		f.addRunLocked(d.pr, d.c, orDefault(f.onPush.Workflow, "CI"), f.onPush.Jobs, nil)
	}
	f.pushDue = kept
}
