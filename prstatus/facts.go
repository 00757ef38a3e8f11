package prstatus

import "time"

// AttentionKind names what a pull request needs now. The constants are listed in decision order
// (docs/architecture.md#the-decision-order): the first kind that matches wins.
type AttentionKind string

// Attention kinds, in decision order.
const (
	AttentionMerged           AttentionKind = "merged"
	AttentionClosed           AttentionKind = "closed"
	AttentionChangesRequested AttentionKind = "changes_requested"
	AttentionNewComments      AttentionKind = "new_comments"
	AttentionReviewerReplied  AttentionKind = "reviewer_replied"
	AttentionMergeConflict    AttentionKind = "merge_conflict"
	AttentionCIFailed         AttentionKind = "ci_failed"
	AttentionCICancelled      AttentionKind = "ci_cancelled"
	// AttentionMergeWhenReady: approved, with only checks still running, on a repository that
	// allows auto-merge: GitHub could merge it by itself once they pass, if the user says so.
	AttentionMergeWhenReady AttentionKind = "merge_when_ready"
	AttentionCIPending      AttentionKind = "ci_pending"
	AttentionReadyToMerge   AttentionKind = "ready_to_merge"
	AttentionStaleApproval  AttentionKind = "stale_approval"
	AttentionNone           AttentionKind = "none"
)

// AttentionOrder is every kind in decision order.
var AttentionOrder = []AttentionKind{
	AttentionMerged, AttentionClosed, AttentionChangesRequested, AttentionNewComments,
	AttentionReviewerReplied, AttentionMergeConflict, AttentionCIFailed, AttentionCICancelled,
	AttentionMergeWhenReady, AttentionCIPending, AttentionReadyToMerge, AttentionStaleApproval, AttentionNone,
}

// Attention is one thing the pull request needs, with a human-readable reason.
//
// Key identifies the situation, not the moment: kind + head SHA + the sorted ids involved (thread
// ids, check names, reviewers, review round). It stays equal while nothing relevant changes, so a
// user's "resume monitoring" can be remembered against it and the attention is not raised again
// until the key changes.
type Attention struct {
	Kind      AttentionKind `json:"kind"`
	Reason    string        `json:"reason"`
	Key       string        `json:"key"`
	ThreadIDs []string      `json:"thread_ids"`
	Checks    []string      `json:"checks"`
	Reviewers []string      `json:"reviewers"`
}

// Facts is what Derive concludes from one Snapshot. Everything in it follows from the snapshot
// and the time passed in; nothing is remembered between polls.
type Facts struct {
	Ref    PRRef  `json:"ref"`
	ID     string `json:"id"`
	Title  string `json:"title"`
	URL    string `json:"url"`
	Author string `json:"author"`
	// AuthorAssociation is the snapshot's: the author's relation to the repository.
	AuthorAssociation Association `json:"author_association,omitempty"`
	Viewer            string      `json:"viewer"`
	State             PRState     `json:"state"`
	IsDraft           bool        `json:"is_draft"`
	HeadRef           string      `json:"head_ref"`
	HeadSHA           string      `json:"head_sha"`
	BaseRef           string      `json:"base_ref"`
	Mergeable         Mergeable   `json:"mergeable"`
	MergeStateStatus  string      `json:"merge_state_status"`
	ReviewDecision    string      `json:"review_decision,omitempty"`
	// BaseSHA is the base branch's tip (Snapshot.BaseOID).
	BaseSHA string `json:"base_sha,omitempty"`
	// StackedOn is the open pull request whose head branch is the base branch: this one merges
	// into its branch (nil: none).
	StackedOn *StackBase `json:"stacked_on,omitempty"`
	// Rules is what the base branch requires, as far as the token can read it.
	Rules BaseRules `json:"rules,omitzero"`
	// Blocked explains, in a few words each, why GitHub blocks the merge when its merge state is
	// BLOCKED: missing approvals, required checks, unresolved conversations, code owners, or a
	// rule the snapshot does not show. Empty otherwise.
	Blocked []string `json:"blocked,omitempty"`
	// AutoMergeAllowed, AutoMerge, MergeQueueRequired and InMergeQueue are the snapshot's.
	AutoMergeAllowed   bool       `json:"auto_merge_allowed,omitempty"`
	AutoMerge          *AutoMerge `json:"auto_merge,omitempty"`
	MergeQueueRequired bool       `json:"merge_queue_required,omitempty"`
	InMergeQueue       bool       `json:"in_merge_queue,omitempty"`

	Reviews ReviewFacts  `json:"reviews"`
	Refine  RefineFacts  `json:"refine"`
	Commits []CommitFact `json:"commits"`
	CI      CIFacts      `json:"ci"`
	Threads ThreadFacts  `json:"threads"`

	// Attention is the single top attention: Attentions[0].
	Attention Attention `json:"attention"`
	// Attentions is every attention that matches, in decision order, ending with none only when
	// nothing else matched. A monitor that has acknowledged the top one looks further down.
	Attentions []Attention `json:"attentions"`

	RateLimit RateLimit `json:"rate_limit"`
	// DerivedAt is the time passed to Derive.
	DerivedAt time.Time `json:"derived_at"`
}

// ReviewerVerdict is one reviewer's latest opinionated review.
type ReviewerVerdict struct {
	Reviewer    string      `json:"reviewer"`
	IsBot       bool        `json:"is_bot"`
	State       ReviewState `json:"state"`
	SubmittedAt time.Time   `json:"submitted_at"`
	CommitOID   string      `json:"commit_oid"`
	// OnHead is true when the review was submitted on the current head commit.
	OnHead   bool   `json:"on_head"`
	ReviewID string `json:"review_id,omitempty"`
	Body     string `json:"body,omitempty"`
	// Association is the reviewer's relation to the repository (empty when not read).
	Association Association `json:"association,omitempty"`
}

// ReviewFacts summarises the reviews.
type ReviewFacts struct {
	// Latest is each reviewer's latest opinionated review (a later COMMENTED review does not
	// override a verdict), sorted by reviewer.
	Latest []ReviewerVerdict `json:"latest"`
	// History is every submitted review of the snapshot's page of them, oldest first: the
	// verdicts, and the COMMENTED reviews that have a body or opened a thread. The PR author's own
	// reviews are left out. VerdictsSince reads it.
	History []ReviewerVerdict `json:"history"`
	// ChangesRequestedBy lists reviewers whose latest opinionated review is CHANGES_REQUESTED.
	ChangesRequestedBy []string `json:"changes_requested_by"`
	// Approvals lists reviewers whose latest opinionated review approves the current head.
	Approvals []string `json:"approvals"`
	// StaleApprovals lists reviewers whose latest opinionated review approved an older head.
	StaleApprovals []string `json:"stale_approvals"`
	// PendingRequests lists reviewers (and teams) with a pending review request.
	PendingRequests []string `json:"pending_requests,omitempty"`
	// CodeOwnerRequests are the pending requests GitHub made of code owners.
	CodeOwnerRequests []string `json:"code_owner_requests,omitempty"`
	// AwaitingReRequest lists reviewers who requested changes, whose request has been answered by
	// a substantive commit, none of whose threads still needs action, and who have no pending
	// review request: the server should ask them to review again. The PR's own side (IsUs) is
	// never among them.
	AwaitingReRequest []string `json:"awaiting_re_request,omitempty"`
	// FromOthers are the submitted reviews of people who cannot review (ReviewerPolicy), oldest
	// first: shown, never a verdict. A request for changes from them neither blocks nor dispatches.
	FromOthers []ReviewerVerdict `json:"from_others,omitempty"`
}

// RefineFacts is the needs-refine rule (docs/needs-refine.md) with its inputs.
type RefineFacts struct {
	NeedsRefine bool   `json:"needs_refine"`
	Reason      string `json:"reason"`
	// LastChangesRequestedAt is the newest submittedAt among reviewers whose latest opinionated
	// review is CHANGES_REQUESTED (nil when there is none).
	LastChangesRequestedAt *time.Time `json:"last_changes_requested_at"`
	// LastSubstantiveCommitAt is the newest author date among commits that are not merges (nil
	// when there is none).
	LastSubstantiveCommitAt *time.Time `json:"last_substantive_commit_at"`
	// Round identifies the review round being answered (the requesting reviewers and the time of
	// the newest CHANGES_REQUESTED); empty when no changes are requested.
	Round string `json:"round,omitempty"`
	// ReviewIDs are the CHANGES_REQUESTED reviews of this round.
	ReviewIDs []string `json:"review_ids,omitempty"`
	// RewrittenSinceReview is true when a commit was committed after the newest CHANGES_REQUESTED
	// but authored before it (a rebase, an amend, a fixup squash). The rule keeps needs_refine true
	// then, because a rebase and an amended fix look the same; the monitor asks the user instead of
	// re-firing a refine that already ran (docs/needs-refine.md).
	RewrittenSinceReview bool `json:"rewritten_since_review,omitempty"`
}

// CommitKind classifies a commit for the needs-refine rule.
type CommitKind string

// Commit kinds.
const (
	// CommitSubstantive is an ordinary commit: it can answer a review.
	CommitSubstantive CommitKind = "substantive"
	// CommitMerge has more than one parent or a "Merge branch/remote-tracking/pull request"
	// headline: it never answers a review.
	CommitMerge CommitKind = "merge"
	// CommitRebased was rewritten (rebase, amend, cherry-pick): its committer date is later than
	// its author date. It counts by its author date, so a plain rebase never answers a review.
	CommitRebased CommitKind = "rebased"
)

// CommitFact is one commit and its classification.
type CommitFact struct {
	OID           string     `json:"oid"`
	Headline      string     `json:"headline"`
	Kind          CommitKind `json:"kind"`
	AuthoredDate  time.Time  `json:"authored_at"`
	CommittedDate time.Time  `json:"committed_at"`
}

// CheckFact is one check of the current head, as shown to users and tasks.
type CheckFact struct {
	Name string    `json:"name"`
	Kind CheckKind `json:"kind"`
	// Result is the conclusion (check run) or state (status context) as GitHub spells it.
	Result        string `json:"result"`
	URL           string `json:"url"`
	JobID         int64  `json:"job_id,omitempty"`
	WorkflowRunID int64  `json:"workflow_run_id,omitempty"`
	Workflow      string `json:"workflow"`
	Required      bool   `json:"required"`
	// FailingOnBase: the same check (kind, workflow, name) failed on the base branch's tip too,
	// so its failure is not this pull request's (set for failed checks only).
	FailingOnBase bool `json:"failing_on_base,omitempty"`
}

// IsActions reports whether the check is a GitHub Actions job (it can be re-run and has logs).
func (c CheckFact) IsActions() bool { return c.WorkflowRunID != 0 && c.JobID != 0 }

// CIFacts counts the head commit's checks. Every check lands in exactly one bucket.
type CIFacts struct {
	Total     int `json:"total"`
	Passed    int `json:"passed"` // success, neutral, skipped
	Failed    int `json:"failed"` // failure, timed out, startup failure, action required, error
	Cancelled int `json:"cancelled"`
	Pending   int `json:"pending"` // queued, in progress, waiting, expected, pending
	// FailedChecks, CancelledChecks and PendingChecks list the checks in those buckets.
	FailedChecks    []CheckFact `json:"failed_checks"`
	CancelledChecks []CheckFact `json:"cancelled_checks"`
	PendingChecks   []CheckFact `json:"pending_checks"`
	// PassedChecks names the checks that passed, sorted (a pass after a failure on the same
	// commit makes the failure flaky).
	PassedChecks []string `json:"passed_checks,omitempty"`
	// Required are the check contexts the base branch requires (its rules, and what GitHub marks
	// isRequired), sorted.
	Required []string `json:"required,omitempty"`
	// Missing are the required checks that have not reported on the head at all ("expected", as
	// GitHub shows them). They are in no bucket and not in Total: nothing of theirs runs yet.
	Missing []string `json:"missing,omitempty"`
	// GraceUntil is set while the head has no check at all, none is required, and it was pushed
	// so lately that its checks may not have registered yet (Options.ChecksGrace).
	GraceUntil time.Time `json:"grace_until,omitzero"`
	// Unverified: no check has reported on the head and GitHub blocks the merge for a reason the
	// snapshot does not show (a rule the token cannot read): most likely required checks that
	// have not started.
	Unverified bool `json:"unverified,omitempty"`
}

// MergingByGitHub reports whether GitHub will merge the pull request by itself: auto-merge is on,
// or it is in its base branch's merge queue. Nobody is asked to merge it meanwhile.
func (f *Facts) MergingByGitHub() bool { return f.AutoMerge != nil || f.InMergeQueue }

// AutoMergeOfferedOnReady reports whether the ready question also offers auto-merge: the
// repository allows it and GitHub holds the direct merge (BLOCKED, for a rule prmonitor cannot
// read: auto-merge lets GitHub merge once it lifts). Where the base branch requires a merge queue,
// merging already is the queue's entry, merged by GitHub once the queue's checks pass.
func (f *Facts) AutoMergeOfferedOnReady() bool {
	return f.AutoMergeAllowed && !f.MergingByGitHub() && f.MergeStateStatus == mergeBlocked && !f.MergeQueueRequired
}

// Green reports whether every check has finished and none failed or was cancelled, every required
// check has reported, and no check is still expected to register. A head with no checks at all,
// none required, past the grace after its push, is green.
func (c CIFacts) Green() bool {
	return c.Failed == 0 && c.Cancelled == 0 && c.Pending == 0 && !c.NotStarted()
}

// FailingOnBaseOnly reports whether checks failed and every one of them fails on the base
// branch's tip too: the failure is the base's, not the pull request's.
func (c CIFacts) FailingOnBaseOnly() bool {
	if len(c.FailedChecks) == 0 {
		return false
	}
	for _, f := range c.FailedChecks {
		if !f.FailingOnBase {
			return false
		}
	}
	return true
}

// NotStarted reports whether checks are expected on the head that have not reported yet: required
// ones, or any within the grace after a push, or what GitHub's block suggests.
func (c CIFacts) NotStarted() bool {
	return len(c.Missing) > 0 || !c.GraceUntil.IsZero() || c.Unverified
}

// ThreadStatus is where a review thread stands.
type ThreadStatus string

// Thread statuses.
const (
	// ThreadNeedsAction: unresolved, and nobody on the PR's side has answered it yet.
	ThreadNeedsAction ThreadStatus = "needs_action"
	// ThreadReviewerReplied: unresolved; the PR's side answered, then someone else wrote again.
	ThreadReviewerReplied ThreadStatus = "reviewer_replied"
	// ThreadWaiting: unresolved; the last comment is by the PR author or the viewer, so the
	// ball is in the reviewer's court.
	ThreadWaiting ThreadStatus = "waiting_for_reply"
	// ThreadResolved: resolved on GitHub.
	ThreadResolved ThreadStatus = "resolved"
	// ThreadFromOthers: unresolved, and nobody who can review (ReviewerPolicy) wrote in it: shown,
	// never acted on.
	ThreadFromOthers ThreadStatus = "from_others"
)

// ThreadFact is one review thread as the monitor sees it.
type ThreadFact struct {
	ID         string       `json:"id"`
	Status     ThreadStatus `json:"status"`
	Path       string       `json:"path,omitempty"`
	Line       int          `json:"line,omitempty"`
	IsOutdated bool         `json:"is_outdated,omitempty"`
	// Reviewer is the author of the first comment, or of the first comment by someone who can
	// review when the thread was opened by someone who cannot.
	Reviewer      string `json:"reviewer"`
	ReviewerIsBot bool   `json:"reviewer_is_bot,omitempty"`
	// Comments are the comments the snapshot holds (first plus newest), oldest first; never empty.
	Comments      []Comment `json:"comments,omitempty"`
	TotalComments int       `json:"total_comments"`
	// ReplyToID is the REST id of the first comment: replies go to .../comments/{id}/replies.
	ReplyToID int64 `json:"reply_to_id,omitempty"`
	// AnsweredByUs: the newest comment is a reply prmonitor posted (it carries prmonitor's marker
	// and the PR's side wrote it; a marker anyone else pastes proves nothing).
	AnsweredByUs bool `json:"answered_by_us,omitempty"`
}

// First is the thread's first comment: the reviewer's (zero when the thread has none).
func (t ThreadFact) First() Comment { return firstComment(t.Comments) }

// Last is the thread's newest comment (zero when the thread has none).
func (t ThreadFact) Last() Comment { return lastComment(t.Comments) }

// ThreadFacts splits the review threads by status. Each thread is in exactly one list.
type ThreadFacts struct {
	NeedsAction     []ThreadFact `json:"needs_action"`
	ReviewerReplied []ThreadFact `json:"reviewer_replied"`
	Waiting         []ThreadFact `json:"waiting_for_reply"`
	Resolved        []ThreadFact `json:"resolved,omitempty"`
	// FromOthers are unresolved threads nobody who can review wrote in (a drive-by comment, an
	// unlisted bot): shown to the user and the agent, never a task, never a block on merging.
	FromOthers []ThreadFact `json:"from_others,omitempty"`
}
