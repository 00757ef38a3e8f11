package prstatus

import "time"

// PRState is GitHub's PullRequestState.
type PRState string

// The states a pull request can be in.
const (
	StateOpen   PRState = "OPEN"
	StateClosed PRState = "CLOSED"
	StateMerged PRState = "MERGED"
)

// Mergeable is GitHub's MergeableState. UNKNOWN means GitHub has not computed it yet (it does so
// lazily, after a push or when the base branch moves): it decides nothing, neither ready nor
// conflict; the watcher reads again and, when it stays UNKNOWN, asks GitHub to compute it.
type Mergeable string

// The mergeable states.
const (
	MergeableYes      Mergeable = "MERGEABLE"
	MergeableConflict Mergeable = "CONFLICTING"
	MergeableUnknown  Mergeable = "UNKNOWN"
)

// ReviewState is GitHub's PullRequestReviewState.
type ReviewState string

// The review states. Only APPROVED, CHANGES_REQUESTED and DISMISSED are opinionated.
const (
	ReviewApproved         ReviewState = "APPROVED"
	ReviewChangesRequested ReviewState = "CHANGES_REQUESTED"
	ReviewCommented        ReviewState = "COMMENTED"
	ReviewDismissed        ReviewState = "DISMISSED"
	ReviewPending          ReviewState = "PENDING"
)

// Opinionated reports whether a review of this state sets or clears a reviewer's verdict. A later
// COMMENTED review never overrides an earlier verdict.
func (s ReviewState) Opinionated() bool {
	return s == ReviewApproved || s == ReviewChangesRequested || s == ReviewDismissed
}

// Submitted reports whether a review in this state was submitted: PENDING is a draft, and a state
// GitHub may add later is not trusted.
func (s ReviewState) Submitted() bool { return s.Opinionated() || s == ReviewCommented }

// Actor is a GitHub account. Login is normalised once, at the edge: bots carry the REST form
// ("copilot-pull-request-reviewer[bot]") whatever GraphQL returned ("copilot-pull-request-reviewer").
type Actor struct {
	Login string `json:"login"`
	IsBot bool   `json:"is_bot,omitempty"`
}

// Snapshot is everything the monitor knows about one pull request, as GitHub reported it in one
// poll. Text fields (Title, Body, comment and review bodies) are untrusted data.
type Snapshot struct {
	Ref    PRRef  `json:"ref"`
	ID     string `json:"id"` // GraphQL node id of the pull request
	Title  string `json:"title"`
	URL    string `json:"url"`
	Body   string `json:"body,omitempty"`
	Author Actor  `json:"author"`
	// AuthorAssociation is the author's relation to the repository (GitHub's authorAssociation of
	// the pull request): OWNER, MEMBER and COLLABORATOR have write access. Empty when it was not
	// read, which proves nothing and counts as none.
	AuthorAssociation Association `json:"author_association,omitempty"`

	State   PRState `json:"state"`
	Merged  bool    `json:"merged"`
	Closed  bool    `json:"closed"`
	IsDraft bool    `json:"is_draft"`

	HeadRef string `json:"head_ref"`
	HeadOID string `json:"head_oid"`
	BaseRef string `json:"base_ref"`
	// BaseOID is the base branch's tip as GitHub reports it now (baseRef.target.oid), not
	// baseRefOid, which lags it.
	BaseOID string `json:"base_oid,omitempty"`
	// CreatedAt is when the pull request was opened, on GitHub's clock.
	CreatedAt time.Time `json:"created_at,omitzero"`

	Mergeable        Mergeable `json:"mergeable"`
	MergeStateStatus string    `json:"merge_state_status"`
	// ReviewDecision is empty when GitHub returns null (no required-review rule on the base branch).
	ReviewDecision string `json:"review_decision,omitempty"`
	// UpdatedAt is GitHub's updatedAt of the pull request, on GitHub's clock (UTC): the watcher
	// compares a later fingerprint's with it, never with its own clock.
	UpdatedAt time.Time `json:"updated_at,omitzero"`

	// LatestOpinionatedReviews is GitHub's latest opinionated review per reviewer.
	LatestOpinionatedReviews []Review `json:"latest_opinionated_reviews"`
	// Reviews is the review history, oldest first (the newest page of it).
	Reviews []Review `json:"reviews"`
	// ReviewRequests lists pending review requests: user and bot logins, and teams as "org/slug".
	ReviewRequests []string `json:"review_requests,omitempty"`
	// CodeOwnerRequests are the review requests GitHub made of code owners (asCodeOwner), in the
	// same form: a subset of ReviewRequests.
	CodeOwnerRequests []string `json:"code_owner_requests,omitempty"`

	Threads []Thread `json:"threads"`
	// Commits are the PR's commits, oldest first. They may be only the newest pages of a long PR:
	// CommitsTotal is GitHub's totalCount.
	Commits      []Commit `json:"commits"`
	CommitsTotal int      `json:"commits_total"`
	// Checks are the statusCheckRollup contexts of the head commit.
	Checks []Check `json:"checks"`
	// BaseChecks are the statusCheckRollup contexts of the base branch's tip (BaseOID), read in
	// the same request (its first page only): a check failing there too is not the PR's.
	BaseChecks []Check `json:"base_checks,omitempty"`
	// StackedOn is the open pull request whose head branch is this one's base branch: this pull
	// request is stacked on it and merges into its branch (nil: none).
	StackedOn *StackBase `json:"stacked_on,omitempty"`

	// Rules is what the base branch requires before a merge, as far as the token can read it.
	Rules BaseRules `json:"rules,omitzero"`
	// AutoMergeAllowed is the repository's setting (Repository.autoMergeAllowed).
	AutoMergeAllowed bool `json:"auto_merge_allowed,omitempty"`
	// AutoMerge is the auto-merge request enabled on the pull request (nil: none).
	AutoMerge *AutoMerge `json:"auto_merge,omitempty"`
	// MergeQueueRequired: the base branch merges through a merge queue (isMergeQueueEnabled).
	MergeQueueRequired bool `json:"merge_queue_required,omitempty"`
	// InMergeQueue: the pull request is in its base branch's merge queue (isInMergeQueue).
	InMergeQueue bool `json:"in_merge_queue,omitempty"`

	Viewer    string    `json:"viewer"` // login of the token's user
	RateLimit RateLimit `json:"rate_limit"`
}

// BaseRules is what the base branch requires before a merge: the union of its branch protection
// rule (branchProtectionRule, which only an administrator's token can read, and refUpdateRule,
// GitHub's view of it for everyone else) and the rules of the active rulesets that apply to it
// (baseRef.rules). A token that can read none of them leaves it empty: the checks' own isRequired
// and GitHub's mergeStateStatus still tell what they can.
type BaseRules struct {
	// RequiredChecks are the status check contexts that must pass (check run names or commit
	// status contexts), sorted, each once.
	RequiredChecks []string `json:"required_checks,omitempty"`
	// StrictChecks: the branch must be up to date with its base before merging.
	StrictChecks bool `json:"strict_checks,omitempty"`
	// RequiredApprovals is the number of approving reviews required (0: none).
	RequiredApprovals int `json:"required_approvals,omitempty"`
	// CodeOwnerReviews: a code owner must approve changes to the files they own.
	CodeOwnerReviews bool `json:"code_owner_reviews,omitempty"`
	// ConversationResolution: every review thread must be resolved before merging.
	ConversationResolution bool `json:"conversation_resolution,omitempty"`
	// MergeQueue: a ruleset requires merges to go through a merge queue.
	MergeQueue bool `json:"merge_queue,omitempty"`
}

// AutoMerge is an auto-merge request on a pull request: GitHub merges it by itself once every
// requirement is met.
type AutoMerge struct {
	EnabledBy   string    `json:"enabled_by,omitempty"`
	EnabledAt   time.Time `json:"enabled_at,omitzero"`
	MergeMethod string    `json:"merge_method,omitempty"`
}

// Review is one submitted review.
type Review struct {
	ID          string      `json:"id"`
	DatabaseID  int64       `json:"database_id,omitempty"`
	Author      Actor       `json:"author"`
	State       ReviewState `json:"state"`
	Body        string      `json:"body,omitempty"`
	SubmittedAt time.Time   `json:"submitted_at"`
	CommitOID   string      `json:"commit_oid,omitempty"` // the head the review was submitted on
	// AuthorAssociation is the author's relation to the repository (empty when not read).
	AuthorAssociation Association `json:"author_association,omitempty"`
}

// Thread is one review thread. Comments holds the first comment followed by the newest ones,
// oldest first, without duplicates; TotalComments is how many the thread really has.
type Thread struct {
	ID            string    `json:"id"`
	IsResolved    bool      `json:"is_resolved"`
	IsOutdated    bool      `json:"is_outdated"`
	Path          string    `json:"path,omitempty"`
	Line          int       `json:"line,omitempty"` // 0 when GitHub has none (file-level, outdated)
	Comments      []Comment `json:"comments"`
	TotalComments int       `json:"total_comments"`
}

// First returns the comment that opened the thread (zero when the thread has none).
func (t Thread) First() Comment { return firstComment(t.Comments) }

// Last returns the newest comment of the thread (zero when the thread has none).
func (t Thread) Last() Comment { return lastComment(t.Comments) }

// firstComment is the oldest of a thread's comments, oldest first (zero when there are none).
func firstComment(cs []Comment) Comment {
	if len(cs) == 0 {
		return Comment{}
	}
	return cs[0]
}

// lastComment is the newest of a thread's comments, oldest first (zero when there are none).
func lastComment(cs []Comment) Comment {
	if len(cs) == 0 {
		return Comment{}
	}
	return cs[len(cs)-1]
}

// Comment is one review-thread comment. DatabaseID is the REST id, needed to reply through REST.
type Comment struct {
	ID         string    `json:"id"`
	DatabaseID int64     `json:"database_id,omitempty"`
	Author     Actor     `json:"author"`
	Body       string    `json:"body"`
	CreatedAt  time.Time `json:"created_at"`
	URL        string    `json:"url,omitempty"`
	// AuthorAssociation is the author's relation to the repository (empty when not read).
	AuthorAssociation Association `json:"author_association,omitempty"`
}

// Commit is one commit of the PR.
type Commit struct {
	OID           string    `json:"oid"`
	AuthoredDate  time.Time `json:"authored_date"`
	CommittedDate time.Time `json:"committed_date"`
	Headline      string    `json:"headline"`
	ParentCount   int       `json:"parent_count"`
}

// StackBase is the pull request another is stacked on: its number and head.
type StackBase struct {
	Number  int    `json:"number"`
	HeadOID string `json:"head_oid,omitempty"`
}

// CheckKind tells a GitHub check run from a legacy commit status.
type CheckKind string

// The two kinds of statusCheckRollup context.
const (
	KindCheckRun      CheckKind = "CheckRun"
	KindStatusContext CheckKind = "StatusContext"
)

// Check is one statusCheckRollup context of the head commit.
type Check struct {
	Kind CheckKind `json:"kind"`
	// Name is CheckRun.name or StatusContext.context.
	Name string `json:"name"`
	// Status is the CheckRun status (QUEUED, IN_PROGRESS, COMPLETED, WAITING, PENDING, REQUESTED).
	Status string `json:"status,omitempty"`
	// Conclusion is the CheckRun conclusion once completed (SUCCESS, FAILURE, CANCELLED, ...).
	Conclusion string `json:"conclusion,omitempty"`
	// State is the StatusContext state (EXPECTED, ERROR, FAILURE, PENDING, SUCCESS).
	State string `json:"state,omitempty"`
	// URL is detailsUrl or targetUrl.
	URL string `json:"url,omitempty"`
	// DatabaseID is the check run's REST id; for GitHub Actions it is the job id.
	DatabaseID int64 `json:"database_id,omitempty"`
	// WorkflowRunID is the GitHub Actions workflow run's REST id, 0 when the check is not Actions.
	WorkflowRunID int64  `json:"workflow_run_id,omitempty"`
	WorkflowName  string `json:"workflow_name,omitempty"`
	IsRequired    bool   `json:"is_required,omitempty"`
	// At is when the run started or the status was reported (zero when unknown): between two
	// reports of one check without database ids (commit statuses), the later one counts.
	At time.Time `json:"at,omitzero"`
}

// RateLimit is GitHub's GraphQL rateLimit as of this snapshot.
type RateLimit struct {
	Cost      int       `json:"cost"`
	Remaining int       `json:"remaining"`
	Limit     int       `json:"limit"`
	ResetAt   time.Time `json:"reset_at,omitzero"`
}
