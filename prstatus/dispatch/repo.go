package dispatch

import (
	"fmt"
	"strings"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
)

// RepoRef names one repository.
type RepoRef struct {
	Owner string `json:"owner"`
	Name  string `json:"name"`
}

// String renders the reference as OWNER/REPO.
func (r RepoRef) String() string { return r.Owner + "/" + r.Name }

// ParseRepo accepts OWNER/REPO. The owner and the name follow GitHub's rules, the same ones as a
// pull request reference; a malformed reference wraps prstatus.ErrBadRef.
func ParseRepo(s string) (RepoRef, error) {
	s = strings.TrimSpace(s)
	owner, name, ok := strings.Cut(s, "/")
	if !ok || strings.ContainsAny(name, "/#") {
		return RepoRef{}, fmt.Errorf("%w: %q; want OWNER/REPO", prstatus.ErrBadRef, s)
	}
	// The pull request parser holds GitHub's naming rules; a repository is a reference without
	// the number.
	ref, err := prstatus.ParsePRRef(owner + "/" + name + "#1")
	if err != nil {
		return RepoRef{}, fmt.Errorf("%w: %q has an invalid owner or repository name; want OWNER/REPO", prstatus.ErrBadRef, s)
	}
	return RepoRef{Owner: ref.Owner, Name: ref.Repo}, nil
}

// Snapshot is one read of a repository: its open pull requests and, once rule 11 asked for them
// (Need.Issues), its oldest open unassigned issues. Text from GitHub in it is untrusted data,
// already cleaned of invisible characters. Logins of bots carry REST's "[bot]" suffix.
type Snapshot struct {
	Repo RepoRef `json:"repo"`
	// Viewer is the token's user: the dispatcher's identity unless the config names one.
	Viewer string `json:"viewer"`
	// PRs are the open pull requests, in any order.
	PRs []PR `json:"prs"`
	// Issues are open issues without an assignee: the oldest ones labelled bug, then the oldest
	// ones of any label (a list may hold an issue twice). Read only when IssuesLoaded.
	Issues       []Issue `json:"issues,omitempty"`
	IssuesLoaded bool    `json:"issues_loaded"`
	// Unrenderable are pull requests whose worker task could not be rendered, with why: the rules
	// skip them, so the run goes on for the others (the runner fills it in and decides again).
	Unrenderable map[int]string `json:"unrenderable,omitempty"`
}

// PR is one open pull request as the dispatcher sees it: prstatus's snapshot of it (reviews,
// checks, review threads; no commits) and what the dispatcher reads besides.
type PR struct {
	prstatus.Snapshot
	// AuthorAssociation is the author's relation to the repository: OWNER, MEMBER and COLLABORATOR
	// have write access. Empty (not read) counts as none.
	AuthorAssociation prstatus.Association `json:"author_association,omitempty"`
	// IsCrossRepository is true for a pull request from a fork; HeadOwner is the login of the
	// fork's owner ("" when the fork was deleted).
	IsCrossRepository bool   `json:"is_cross_repository,omitempty"`
	HeadOwner         string `json:"head_owner,omitempty"`
	// RollupState is the head's statusCheckRollup state (SUCCESS, FAILURE, ERROR, PENDING,
	// EXPECTED), empty when no check was reported on it. It counts every run GitHub keeps, a
	// failure a re-run superseded and a queued duplicate included (docs/watcher.md, "GitHub as it
	// behaves"), so the rules read it only for what Checks cannot tell: a required status not
	// reported yet (EXPECTED), and the runs past the page when ChecksCut.
	RollupState string `json:"rollup_state,omitempty"`
	// ChecksCut is true when Checks holds only the first page of the head's checks.
	ChecksCut bool `json:"checks_cut,omitempty"`
	// Labels are the names of the pull request's labels.
	Labels []string `json:"labels"`
	// Assignees are the logins of its assignees.
	Assignees []string `json:"assignees"`
	// LabelEvents are the times labels were applied (timeline LabeledEvent items), oldest first.
	LabelEvents []LabelEvent `json:"label_events"`
	// Comments are the newest conversation comments (not review comments), oldest first.
	// CommentsBefore is the cursor of older ones still unread ("" when Comments holds them all):
	// the rules ask for them (Need.CommentsOf) before they look for the user's comments.
	// CommentsCut is set when the reader gave up past its bound: the rules then decide nothing
	// that needs the user's comments.
	Comments       []prstatus.Comment `json:"comments"`
	CommentsBefore string             `json:"comments_before,omitempty"`
	CommentsCut    bool               `json:"comments_cut,omitempty"`
	// ThreadRepliesLoaded is true once every unresolved thread's TotalComments is known: the
	// repository read leaves it out (it is costly), rule 9 asks for it (Need.ThreadsOf).
	ThreadRepliesLoaded bool `json:"thread_replies_loaded"`
}

// Number is the pull request's number.
func (p *PR) Number() int { return p.Ref.Number }

// LabelEvent is one label applied to a pull request (or, in a lock's re-read, removed).
type LabelEvent struct {
	ID      string    `json:"id,omitempty"`
	Label   string    `json:"label"`
	At      time.Time `json:"at"`
	Actor   string    `json:"actor,omitempty"`
	Removed bool      `json:"removed,omitempty"`
}

// Issue is one open issue.
type Issue struct {
	Number    int      `json:"number"`
	Title     string   `json:"title"`
	URL       string   `json:"url"`
	Labels    []string `json:"labels"`
	Assignees []string `json:"assignees"`
	// Author and AuthorAssociation say who wrote it: rule 11 takes only issues from people it
	// trusts.
	Author            prstatus.Actor       `json:"author"`
	AuthorAssociation prstatus.Association `json:"author_association,omitempty"`
}

// sameLogin reports whether two logins name the same account in either of GitHub's forms: a bot
// is "dependabot" in GraphQL and "dependabot[bot]" in REST, and logins are case-insensitive.
func sameLogin(a, b string) bool {
	a, b = strings.TrimSuffix(strings.ToLower(a), "[bot]"), strings.TrimSuffix(strings.ToLower(b), "[bot]")
	return a != "" && a == b
}

func anyLogin(list []string, login string) bool {
	for _, l := range list {
		if sameLogin(l, login) {
			return true
		}
	}
	return false
}

// hasLabel reports whether names holds label; GitHub's label names are case-insensitive.
func hasLabel(names []string, label string) bool {
	for _, n := range names {
		if strings.EqualFold(n, label) {
			return true
		}
	}
	return false
}
