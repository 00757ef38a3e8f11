package githubfake

import (
	"strings"
	"time"
)

// ActorType is the GraphQL type of an account.
type ActorType string

// The account types the fake knows.
const (
	TypeUser      ActorType = "User"
	TypeBot       ActorType = "Bot"
	TypeMannequin ActorType = "Mannequin"
)

// Actor is a GitHub account. Login is the GraphQL form: a bot's login carries no "[bot]" suffix
// (GitHub's REST API adds one; the fake does the same, faithfully).
type Actor struct {
	Login string
	Type  ActorType
}

// User is a human account.
func User(login string) Actor { return Actor{Login: login, Type: TypeUser} }

// Bot is an app's bot account. A trailing "[bot]" is dropped: GraphQL logins have none.
func Bot(login string) Actor {
	return Actor{Login: strings.TrimSuffix(login, "[bot]"), Type: TypeBot}
}

// Mannequin is a placeholder account left by an import.
func Mannequin(login string) Actor { return Actor{Login: login, Type: TypeMannequin} }

// IsBot reports whether the account is a bot.
func (a Actor) IsBot() bool { return a.Type == TypeBot }

// RESTLogin is the login as GitHub's REST API spells it: bots end in "[bot]".
func (a Actor) RESTLogin() string {
	if a.IsBot() {
		return a.Login + "[bot]"
	}
	return a.Login
}

func (a Actor) zero() bool { return a.Login == "" }

// Team is an organisation's team, as a review request can name it.
type Team struct {
	Org  string
	Slug string
}

// String renders the team as "org/slug".
func (t Team) String() string { return t.Org + "/" + t.Slug }

// Ref names a pull request or an issue of a repository: OWNER/REPO#N. The fake keeps its own
// plain reference so that it depends on no prmonitor package; a test holding prmonitor's own
// reference (same fields) converts it at the edge, githubfake.Ref(ref).
type Ref struct {
	Owner  string
	Repo   string
	Number int
}

// String renders the reference as OWNER/REPO#N.
func (r Ref) String() string { return r.Owner + "/" + r.Repo + "#" + itoa(r.Number) }

// PRState is GitHub's PullRequestState.
type PRState string

// The states of a pull request.
const (
	PRStateOpen   PRState = "OPEN"
	PRStateClosed PRState = "CLOSED"
	PRStateMerged PRState = "MERGED"
)

// MergeableState is GitHub's MergeableState: UNKNOWN while GitHub is still computing it.
type MergeableState string

// The mergeable states.
const (
	MergeableStateMergeable   MergeableState = "MERGEABLE"
	MergeableStateConflicting MergeableState = "CONFLICTING"
	MergeableStateUnknown     MergeableState = "UNKNOWN"
)

// ReviewState is GitHub's PullRequestReviewState. A PENDING review is a draft nobody else sees.
type ReviewState string

// The review states.
const (
	ReviewStateApproved         ReviewState = "APPROVED"
	ReviewStateChangesRequested ReviewState = "CHANGES_REQUESTED"
	ReviewStateCommented        ReviewState = "COMMENTED"
	ReviewStateDismissed        ReviewState = "DISMISSED"
	ReviewStatePending          ReviewState = "PENDING"
)

// Repository is one repository and its pull requests.
type Repository struct {
	Owner         string
	Name          string
	ID            string
	DatabaseID    int64
	DefaultBranch string
	CreatedAt     time.Time

	PullRequests map[int]*PullRequest
	// Runs are the GitHub Actions workflow runs, by database id.
	Runs map[int64]*WorkflowRun
	// Issues are the issues, by number (pull requests take numbers from the same sequence).
	Issues map[int]*Issue
	// Labels are the repository's labels, by lowercase name.
	Labels map[string]*Label
	// Files are files on the default branch, by path (see PutFile).
	Files map[string]string
	// Tips are the branches' tips, by name, once a branch moved (BaseBranchMoved); a branch not
	// in it is at the base commit its pull requests were built on.
	Tips map[string]string
	// TipCommits are branch tip commits that have checks of their own (BaseCheckCompleted), by oid.
	TipCommits map[string]*Commit
	// DeleteBranchOnMerge is the repository's "Automatically delete head branches" setting: a merge
	// deletes the head branch and retargets the pull requests based on it (ops_stack.go).
	DeleteBranchOnMerge bool
	// AutoMergeAllowed is the repository's "Allow auto-merge" setting.
	AutoMergeAllowed bool
	// Protections are the classic branch protection rules, by branch name.
	Protections map[string]*BranchRules
	// Rulesets are the active rulesets' rules, each for the branches it names.
	Rulesets []*Ruleset

	ownerID string
}

// NameWithOwner is "owner/name".
func (r *Repository) NameWithOwner() string { return r.Owner + "/" + r.Name }

// PullRequest is the plain data of one pull request. Commits are oldest first; the last one is
// the head. Fields are read and changed only under the fake's lock (inside an Event, Do or View).
type PullRequest struct {
	Repo       *Repository
	Number     int
	ID         string
	DatabaseID int64
	Title      string
	Body       string
	Author     Actor

	State   PRState
	IsDraft bool

	HeadRef string
	BaseRef string
	// BaseOID is the base branch's commit the head is built on.
	BaseOID string
	Commits []*Commit

	// Mergeable is GitHub's computed mergeability.
	Mergeable MergeableState
	// MergeStateStatus overrides the computed merge state status when not empty.
	MergeStateStatus string
	// Behind marks the head as out of date with the base (merge state BEHIND when nothing
	// more important applies).
	Behind bool
	// ReviewDecision overrides the computed review decision when not empty. Without an override
	// it is null unless RequiredApprovals > 0, as on a base branch without a review rule.
	ReviewDecision    string
	RequiredApprovals int
	// MergeRefusal, when set, is the message a merge is refused with (a ruleset or branch
	// protection, e.g. "At least 2 approving reviews are required").
	MergeRefusal string
	// Computing is what Mergeable becomes once GitHub has computed it (lazy mergeability, see
	// WithLazyMergeability); ComputedAt is when that happens (zero: nobody asked yet).
	Computing  MergeableState
	ComputedAt time.Time
	// AutoMerge is the auto-merge request enabled on the pull request (nil: none).
	AutoMerge *AutoMergeRequest
	// Queued is the pull request's merge queue entry (nil: not queued).
	Queued *QueueEntry

	Reviews []*Review
	Threads []*Thread
	// Files are the paths the pull request's diff touches (FilesChanged).
	Files          []string
	ReviewRequests []*ReviewRequest

	CreatedAt      time.Time
	UpdatedAt      time.Time
	ClosedAt       time.Time
	MergedAt       time.Time
	MergedBy       Actor
	MergeCommitOID string
	// CrossRepository marks a pull request from a fork (see FromFork); HeadOwner is the fork's
	// owner ("" for the author's own fork).
	CrossRepository bool
	HeadOwner       string

	// Conversation is what the pull request shares with issues: labels, assignees, comments.
	Conversation
}

// Head is the head commit (nil before the first push).
func (p *PullRequest) Head() *Commit {
	if len(p.Commits) == 0 {
		return nil
	}
	return p.Commits[len(p.Commits)-1]
}

// HeadOID is the head commit's oid ("" before the first push).
func (p *PullRequest) HeadOID() string {
	if h := p.Head(); h != nil {
		return h.OID
	}
	return ""
}

// URL is the pull request's web address.
func (p *PullRequest) URL() string {
	return "https://github.com/" + p.Repo.NameWithOwner() + "/pull/" + itoa(p.Number)
}

// Ref names the pull request.
func (p *PullRequest) Ref() Ref {
	return Ref{Owner: p.Repo.Owner, Repo: p.Repo.Name, Number: p.Number}
}

// Commit is one commit of a pull request, with the checks reported on it.
type Commit struct {
	OID           string
	NodeID        string
	Parents       []string
	Headline      string
	Body          string
	Author        Actor
	AuthoredDate  time.Time
	CommittedDate time.Time

	// CheckRuns are the current check runs (a re-run replaces a run's entry).
	CheckRuns []*CheckRun
	Statuses  []*StatusContext
	// Superseded are check runs a later run of the same check replaced (a re-run). GitHub keeps
	// them in the commit's status check rollup, where they still vote: a failed run a re-run
	// replaced keeps the rollup's state FAILURE, a queued one that never ran keeps it PENDING.
	Superseded []*CheckRun

	pr *PullRequest
}

// Message is the full commit message.
func (c *Commit) Message() string {
	if c.Body == "" {
		return c.Headline
	}
	return c.Headline + "\n\n" + c.Body
}

// Review is one pull request review. A PENDING review has a zero SubmittedAt.
type Review struct {
	ID          string
	DatabaseID  int64
	Author      Actor
	State       ReviewState
	Body        string
	CreatedAt   time.Time
	SubmittedAt time.Time
	CommitOID   string

	pr *PullRequest
}

// URL is the review's web address.
func (r *Review) URL() string {
	return r.pr.URL() + "#pullrequestreview-" + i64toa(r.DatabaseID)
}

// Thread is one review thread.
type Thread struct {
	ID           string
	Path         string
	Line         int // 0: none (file-level or outdated)
	OriginalLine int
	StartLine    int
	IsResolved   bool
	IsOutdated   bool
	ResolvedBy   Actor
	Comments     []*ReviewComment

	pr *PullRequest
}

// Visible returns the comments others can see: comments in a pending review are hidden.
func (t *Thread) Visible() []*ReviewComment {
	out := make([]*ReviewComment, 0, len(t.Comments))
	for _, c := range t.Comments {
		if !c.Pending {
			out = append(out, c)
		}
	}
	return out
}

// ReviewComment is one comment of a review thread.
type ReviewComment struct {
	ID         string
	DatabaseID int64
	Author     Actor
	Body       string
	CreatedAt  time.Time
	UpdatedAt  time.Time
	CommitOID  string
	// ReviewID is the node id of the review the comment belongs to.
	ReviewID string
	// ReplyTo is the database id of the thread's first comment (0 for the first comment).
	ReplyTo int64
	// Pending comments belong to a review that was not submitted: nobody else sees them.
	Pending bool

	thread *Thread
}

// URL is the comment's web address.
func (c *ReviewComment) URL() string {
	return c.thread.pr.URL() + "#discussion_r" + i64toa(c.DatabaseID)
}

// ReviewRequest is one pending request for a review, of an account or of a team.
type ReviewRequest struct {
	ID          string
	DatabaseID  int64
	Reviewer    Actor // zero for a team request
	Team        Team  // zero for an account request
	AsCodeOwner bool

	pr *PullRequest
}

// Check run statuses and conclusions, as GraphQL spells them.
const (
	StatusQueued     = "QUEUED"
	StatusInProgress = "IN_PROGRESS"
	StatusCompleted  = "COMPLETED"
	StatusWaiting    = "WAITING"
	StatusPending    = "PENDING"

	ConclusionSuccess        = "SUCCESS"
	ConclusionFailure        = "FAILURE"
	ConclusionCancelled      = "CANCELLED"
	ConclusionNeutral        = "NEUTRAL"
	ConclusionSkipped        = "SKIPPED"
	ConclusionTimedOut       = "TIMED_OUT"
	ConclusionActionRequired = "ACTION_REQUIRED"
	ConclusionStartupFailure = "STARTUP_FAILURE"
	ConclusionStale          = "STALE"
)

// Commit status (StatusContext) states.
const (
	StateSuccess  = "SUCCESS"
	StateFailure  = "FAILURE"
	StateError    = "ERROR"
	StatePending  = "PENDING"
	StateExpected = "EXPECTED"
)

// CheckRun is one check run. For GitHub Actions, DatabaseID is the job id and Run the workflow
// run; Run is nil for a check from another app.
type CheckRun struct {
	ID          string
	DatabaseID  int64
	Name        string
	Status      string
	Conclusion  string // "" until completed
	StartedAt   time.Time
	CompletedAt time.Time
	DetailsURL  string
	Title       string
	Summary     string
	IsRequired  bool
	Run         *WorkflowRun
	// Attempt is the run attempt this check run belongs to (1 for the first).
	Attempt int
	// Log is the job's plain-text log (generated when empty).
	Log     string
	HeadSHA string
	// SuiteID and SuiteDatabaseID identify the check suite.
	SuiteID         string
	SuiteDatabaseID int64

	commit *Commit
}

// Failed reports whether a completed check run counts as a failure for a "re-run failed jobs".
func (c *CheckRun) Failed() bool {
	switch c.Conclusion {
	case ConclusionFailure, ConclusionCancelled, ConclusionTimedOut, ConclusionStartupFailure, ConclusionActionRequired:
		return true
	}
	return false
}

// WorkflowRun is one GitHub Actions workflow run.
type WorkflowRun struct {
	ID             string
	DatabaseID     int64
	WorkflowName   string
	WorkflowID     int64
	WorkflowNodeID string
	RunNumber      int
	Attempt        int
	Event          string
	HeadSHA        string
	HeadBranch     string
	CreatedAt      time.Time
	// Jobs are every check run of the run, all attempts, in creation order.
	Jobs []*CheckRun

	repo *Repository
}

// URL is the run's web address.
func (w *WorkflowRun) URL() string {
	return "https://github.com/" + w.repo.NameWithOwner() + "/actions/runs/" + i64toa(w.DatabaseID)
}

// StatusContext is one commit status (the legacy status API).
type StatusContext struct {
	ID          string
	Context     string
	State       string
	TargetURL   string
	Description string
	IsRequired  bool
	CreatedAt   time.Time
	Creator     Actor

	commit *Commit
}
