package githubfake

import (
	"strings"
	"time"
)

// Auto-merge and merge queues, with the fake's lock held. GitHub merges a pull request whose
// auto-merge is enabled by itself once every requirement of its base branch is met (or adds it to
// the merge queue, where the base requires one), and a merge queue merges its entries once their
// checks pass. The fake does both when time passes (settleLocked): at the next request, Apply or
// Advance after the pull request became mergeable.

// AutoMergeRequest is an enabled auto-merge.
type AutoMergeRequest struct {
	EnabledBy   Actor
	EnabledAt   time.Time
	MergeMethod string // MERGE, SQUASH or REBASE
}

// QueueEntry is a pull request's place in its base branch's merge queue.
type QueueEntry struct {
	ID         string
	EnqueuedAt time.Time
	Enqueuer   Actor
	HeadOID    string
}

// Through says how a recorded merge came about (Merge.Through).
const (
	ThroughAutoMerge  = "auto-merge"
	ThroughMergeQueue = "merge queue"
)

// enableAutoMergeLocked enables auto-merge as the viewer, or says why GitHub refuses: the
// repository does not allow it, the head is not the expected one, the pull request is closed or
// a draft, or it could be merged right now ("clean status": merge it instead).
func (f *Fake) enableAutoMergeLocked(pr *PullRequest, method, expectedHead string) error {
	switch {
	case !pr.Repo.AutoMergeAllowed:
		return newFieldError(ErrTypeUnprocessable, "Auto merge is not allowed for this repository")
	case pr.State != PRStateOpen:
		return newFieldError(ErrTypeUnprocessable, "Pull request is closed")
	case expectedHead != "" && !strings.EqualFold(expectedHead, pr.HeadOID()):
		return newFieldError(ErrTypeUnprocessable, "Head sha didn't match expected head sha")
	case pr.IsDraft:
		return newFieldError(ErrTypeUnprocessable, "Pull request is in draft state")
	case pr.AutoMerge != nil:
		return nil // already enabled: GitHub keeps the request
	case f.mergeStateStatus(pr) == "CLEAN":
		return newFieldError(ErrTypeUnprocessable, "Pull request is in clean status")
	}
	if method == "" {
		method = "MERGE"
	}
	pr.AutoMerge = &AutoMergeRequest{EnabledBy: f.viewer, EnabledAt: f.clock.now(), MergeMethod: strings.ToUpper(method)}
	pr.UpdatedAt = f.clock.now()
	return nil
}

// disableAutoMergeLocked disables auto-merge; GitHub refuses when none is enabled.
func (f *Fake) disableAutoMergeLocked(pr *PullRequest) error {
	if pr.AutoMerge == nil {
		return newFieldError(ErrTypeUnprocessable, "Auto merge is not enabled for this pull request")
	}
	pr.AutoMerge = nil
	pr.UpdatedAt = f.clock.now()
	return nil
}

// enqueueLocked adds the pull request to its base branch's merge queue, or says why GitHub
// refuses: no merge queue, another head than expected, or a requirement of the base not met.
func (f *Fake) enqueueLocked(pr *PullRequest, expectedHead string) (*QueueEntry, error) {
	if _, queue := baseRules(pr); !queue {
		return nil, newFieldError(ErrTypeUnprocessable, "The base branch does not have a merge queue")
	}
	if expectedHead != "" && !strings.EqualFold(expectedHead, pr.HeadOID()) {
		return nil, newFieldError(ErrTypeUnprocessable, "Head sha didn't match expected head sha")
	}
	if pr.Queued != nil {
		return pr.Queued, nil
	}
	if r := f.queueCheckLocked(pr); r != nil {
		return nil, newFieldError(ErrTypeUnprocessable, "%s", r.message)
	}
	pr.Queued = &QueueEntry{ID: f.ids.node("MQE"), EnqueuedAt: f.clock.now(), Enqueuer: f.viewer, HeadOID: pr.HeadOID()}
	pr.UpdatedAt = f.clock.now()
	return pr.Queued, nil
}

// queueCheckLocked is mergeCheckLocked without the merge queue's own rule: what a pull request
// must meet to join the queue, and to leave it merged.
func (f *Fake) queueCheckLocked(pr *PullRequest) *mergeRefusal {
	r := f.mergeCheckLocked(pr, "merge", "")
	if r != nil && strings.Contains(r.message, "merge queue") {
		return nil
	}
	return r
}

// mergeByGitHubLocked merges the pull request as GitHub does by itself (auto-merge, the queue),
// records it and returns the merge hook call to make once the lock is released.
func (f *Fake) mergeByGitHubLocked(pr *PullRequest, method string, by Actor, through string) func() {
	now := f.clock.now()
	pr.State = PRStateMerged
	pr.MergedAt, pr.ClosedAt, pr.UpdatedAt = now, now, now
	pr.MergedBy = by
	pr.MergeCommitOID = f.ids.oid("merge " + through)
	pr.ReviewRequests = nil
	f.afterMergeLocked(pr)
	pr.AutoMerge, pr.Queued = nil, nil
	return f.recordMergeLocked(Merge{At: now, Ref: pr.Ref(), Via: KindGraphQL, Method: strings.ToLower(method),
		SHA: pr.HeadOID(), Merged: true, Through: through})
}

// settleMergesLocked lets GitHub do what it does by itself: merge (or queue) pull requests whose
// auto-merge is enabled and whose requirements are met, and merge queue entries that still meet
// them once time has passed since they were queued. A queued pull request whose head moved leaves
// the queue, as on GitHub.
func (f *Fake) settleMergesLocked() {
	now := f.clock.now()
	for _, repo := range f.repos {
		for _, pr := range repo.PullRequests {
			if pr.State != PRStateOpen {
				continue
			}
			if q := pr.Queued; q != nil && q.HeadOID != pr.HeadOID() {
				pr.Queued = nil
			}
			switch {
			case pr.Queued != nil && now.After(pr.Queued.EnqueuedAt) && f.queueCheckLocked(pr) == nil:
				f.afterSettle = append(f.afterSettle, f.mergeByGitHubLocked(pr, "merge", pr.Queued.Enqueuer, ThroughMergeQueue))
			case pr.AutoMerge != nil && pr.Queued == nil:
				if _, queue := baseRules(pr); queue {
					if f.queueCheckLocked(pr) == nil {
						pr.Queued = &QueueEntry{ID: f.ids.node("MQE"), EnqueuedAt: now, Enqueuer: pr.AutoMerge.EnabledBy, HeadOID: pr.HeadOID()}
					}
					continue
				}
				if f.mergeCheckLocked(pr, "merge", "") == nil {
					f.afterSettle = append(f.afterSettle, f.mergeByGitHubLocked(pr, pr.AutoMerge.MergeMethod, pr.AutoMerge.EnabledBy, ThroughAutoMerge))
				}
			}
		}
	}
}

// autoMergeObject is PullRequest.autoMergeRequest.
func (x *execution) autoMergeObject(pr *PullRequest) any {
	a := pr.AutoMerge
	if a == nil {
		return nil
	}
	return static("AutoMergeRequest", map[string]any{
		"enabledAt": a.EnabledAt, "enabledBy": x.actor(a.EnabledBy), "mergeMethod": a.MergeMethod,
		"commitHeadline": nil, "commitBody": nil, "authorEmail": nil, "pullRequest": pr,
	})
}

// queueEntryObject is PullRequest.mergeQueueEntry and the enqueue mutation's entry.
func (x *execution) queueEntryObject(pr *PullRequest) any {
	q := pr.Queued
	if q == nil {
		return nil
	}
	return static("MergeQueueEntry", map[string]any{
		"id": q.ID, "enqueuedAt": q.EnqueuedAt, "enqueuer": x.actor(q.Enqueuer), "position": 1, "state": "QUEUED",
		"jump": false, "solo": false, "pullRequest": pr, "estimatedTimeToMerge": nil,
	})
}
