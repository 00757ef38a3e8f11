package githubfake

import (
	"fmt"
	"strings"
	"time"
)

// Events on the pull request itself and its branch.

// NewCommit describes a commit to push.
type NewCommit struct {
	Headline string
	Body     string
	// Author defaults to the pull request's author.
	Author Actor
	// AuthoredAt defaults to the push time.
	AuthoredAt time.Time
	// Merge makes a merge commit from the base branch (two parents); Headline defaults to
	// "Merge branch '<base>' into <head>".
	Merge bool
}

// Commits returns n ordinary commits "<prefix> 1" .. "<prefix> n", for long pull requests.
func Commits(n int, prefix string) []NewCommit {
	out := make([]NewCommit, n)
	for i := range out {
		out[i] = NewCommit{Headline: fmt.Sprintf("%s %d", prefix, i+1)}
	}
	return out
}

func (f *Fake) pushLocked(pr *PullRequest, commits []NewCommit) []*Commit {
	now := f.clock.now()
	out := make([]*Commit, 0, len(commits))
	for _, nc := range commits {
		parent := pr.HeadOID()
		if parent == "" {
			parent = pr.BaseOID
		}
		c := &Commit{
			NodeID: f.ids.node(prefixCommit), Parents: []string{parent}, Headline: nc.Headline, Body: nc.Body,
			Author: nc.Author, AuthoredDate: nc.AuthoredAt, CommittedDate: now, pr: pr,
		}
		if c.Author.zero() {
			c.Author = pr.Author
		}
		if c.AuthoredDate.IsZero() {
			c.AuthoredDate = now
		}
		if nc.Merge {
			pr.BaseOID = f.newBaseLocked(pr)
			c.Parents = append(c.Parents, pr.BaseOID)
			pr.Behind = false
			if c.Headline == "" {
				c.Headline = fmt.Sprintf("Merge branch '%s' into %s", pr.BaseRef, pr.HeadRef)
			}
		}
		if c.Headline == "" {
			c.Headline = "Update " + pr.HeadRef
		}
		c.OID = f.ids.oid(c.Headline)
		pr.Commits = append(pr.Commits, c)
		out = append(out, c)
	}
	pr.UpdatedAt = now
	f.newHeadLocked(pr)
	return out
}

// newHeadLocked is what a new head sets off on GitHub: mergeability is computed again (lazily,
// see WithLazyMergeability), and the workflows that run on a push register (WithWorkflowOnPush),
// so that until they do the head has no checks and a null rollup.
func (f *Fake) newHeadLocked(pr *PullRequest) {
	f.recomputeMergeabilityLocked(pr, mergeabilityTruth(pr))
	f.schedulePushWorkflowLocked(pr, pr.Head())
}

// newBaseLocked is the base commit a merge of the base or a rebase builds on: the base branch's
// tip when it moved (BaseBranchMoved), else a new one.
func (f *Fake) newBaseLocked(pr *PullRequest) string {
	if t, ok := pr.Repo.Tips[pr.BaseRef]; ok {
		return t
	}
	return f.ids.oid(pr.BaseRef)
}

func describeCommits(commits []NewCommit) string {
	var names []string
	for i, c := range commits {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(commits)-3))
			break
		}
		h := c.Headline
		if h == "" && c.Merge {
			h = "a merge from the base branch"
		}
		names = append(names, fmt.Sprintf("%q", h))
	}
	return strings.Join(names, ", ")
}

func who(a Actor, fallback string) string {
	if a.zero() {
		return fallback
	}
	return a.Login
}

// OpenPR opens the pull request (creating the repository if needed) with its first commits.
type OpenPR struct {
	Author Actor // defaults to the viewer
	Title  string
	Body   string
	Head   string // defaults to "feature"
	Base   string // defaults to "main"
	Draft  bool
	// Commits default to one commit titled like the pull request.
	Commits []NewCommit
	// RequiredApprovals > 0 gives the base branch a review rule: reviewDecision is then computed.
	RequiredApprovals int
}

// Describe implements Event.
func (e OpenPR) Describe() string {
	n := max(len(e.Commits), 1)
	draft := ""
	if e.Draft {
		draft = " as a draft"
	}
	return fmt.Sprintf("%s opens %q (%s → %s)%s with %d commit%s", who(e.Author, "the viewer"), e.Title,
		orDefault(e.Head, "feature"), orDefault(e.Base, "main"), draft, n, plural(n, "", "s"))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Apply implements Event.
func (e OpenPR) Apply(tx *Tx) error {
	f := tx.f
	if f.prLocked(tx.ref) != nil {
		return fmt.Errorf("githubfake: %s is already open", tx.ref)
	}
	repo := f.ensureRepoLocked(tx.ref.Owner, tx.ref.Repo)
	now := f.clock.now()
	author := e.Author
	if author.zero() {
		author = f.viewer
	}
	f.accountLocked(author)
	pr := &PullRequest{
		Repo: repo, Number: tx.ref.Number, ID: f.ids.node(prefixPullRequest), DatabaseID: f.ids.db("pr"),
		Title: e.Title, Body: e.Body, Author: author, State: PRStateOpen, IsDraft: e.Draft,
		HeadRef: orDefault(e.Head, "feature"), BaseRef: orDefault(e.Base, repo.DefaultBranch),
		BaseOID: f.ids.oid("base"), Mergeable: MergeableStateMergeable, RequiredApprovals: e.RequiredApprovals,
		CreatedAt: now, UpdatedAt: now,
	}
	repo.PullRequests[pr.Number] = pr
	f.nodes[pr.ID] = pr
	commits := e.Commits
	if len(commits) == 0 {
		commits = []NewCommit{{Headline: orDefault(e.Title, "Initial change")}}
	}
	f.pushLocked(pr, commits)
	return nil
}

// Push pushes commits onto the head branch.
type Push struct {
	Commits []NewCommit
}

// Describe implements Event.
func (e Push) Describe() string {
	return fmt.Sprintf("the author pushes %d commit%s: %s", len(e.Commits), plural(len(e.Commits), "", "s"), describeCommits(e.Commits))
}

// Apply implements Event.
func (e Push) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	tx.f.pushLocked(pr, e.Commits)
	return nil
}

// MergeBase merges the base branch into the head: a merge commit with two parents.
type MergeBase struct{}

// Describe implements Event.
func (MergeBase) Describe() string { return "the author merges the base branch into the head branch" }

// Apply implements Event.
func (MergeBase) Apply(tx *Tx) error { return Push{Commits: []NewCommit{{Merge: true}}}.Apply(tx) }

// Rebase rebases the head branch onto a newer base: every commit gets a new oid and committer
// date, author dates stay. Merge commits disappear, as git rebase linearises history. Checks of
// the old commits stay on those commits.
type Rebase struct{}

// Describe implements Event.
func (Rebase) Describe() string {
	return "the author rebases onto the latest base (new oids and committer dates, same author dates)"
}

// Apply implements Event.
func (Rebase) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	f := tx.f
	now := f.clock.now()
	pr.BaseOID = f.newBaseLocked(pr)
	parent := pr.BaseOID
	var rewritten []*Commit
	for _, c := range pr.Commits {
		if len(c.Parents) > 1 {
			continue
		}
		nc := &Commit{
			OID: f.ids.oid(c.Headline), NodeID: f.ids.node(prefixCommit), Parents: []string{parent},
			Headline: c.Headline, Body: c.Body, Author: c.Author, AuthoredDate: c.AuthoredDate, CommittedDate: now, pr: pr,
		}
		rewritten = append(rewritten, nc)
		parent = nc.OID
	}
	pr.Commits = rewritten
	pr.Behind = false
	pr.UpdatedAt = now
	f.newHeadLocked(pr)
	return nil
}

// Amend rewrites the head commit (git commit --amend and a force push): new oid and committer
// date, same author date; Headline, when set, replaces the message.
type Amend struct {
	Headline string
}

// Describe implements Event.
func (e Amend) Describe() string {
	if e.Headline != "" {
		return fmt.Sprintf("the author amends the head commit to %q and force-pushes", e.Headline)
	}
	return "the author amends the head commit and force-pushes"
}

// Apply implements Event.
func (e Amend) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	old := pr.Head()
	if old == nil {
		return fmt.Errorf("githubfake: %s has no commit to amend", tx.ref)
	}
	f := tx.f
	now := f.clock.now()
	c := &Commit{
		NodeID: f.ids.node(prefixCommit), Parents: append([]string(nil), old.Parents...), Headline: old.Headline,
		Body: old.Body, Author: old.Author, AuthoredDate: old.AuthoredDate, CommittedDate: now, pr: pr,
	}
	if e.Headline != "" {
		c.Headline = e.Headline
	}
	c.OID = f.ids.oid(c.Headline)
	pr.Commits[len(pr.Commits)-1] = c
	pr.UpdatedAt = now
	f.newHeadLocked(pr)
	return nil
}

// SetDraft marks the pull request as a draft, or ready for review.
type SetDraft struct{ Draft bool }

// Describe implements Event.
func (e SetDraft) Describe() string {
	if e.Draft {
		return "the pull request is converted to a draft"
	}
	return "the pull request is marked ready for review"
}

// Apply implements Event.
func (e SetDraft) Apply(tx *Tx) error {
	return tx.update(func(pr *PullRequest) { pr.IsDraft = e.Draft })
}

// update changes the pull request as an edit of it does: its updatedAt moves.
func (tx *Tx) update(fn func(pr *PullRequest)) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	fn(pr)
	pr.UpdatedAt = tx.f.clock.now()
	return nil
}

// recompute changes what GitHub computes about the pull request (mergeability after the base
// branch moved, the base branch's rules): no edit of the pull request, so updatedAt stays.
func (tx *Tx) recompute(fn func(pr *PullRequest)) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	fn(pr)
	return nil
}

// MergeConflict makes the pull request conflict with its base (mergeable CONFLICTING).
type MergeConflict struct{}

// Describe implements Event.
func (MergeConflict) Describe() string {
	return "the base branch moves on and now conflicts with the head"
}

// Apply implements Event.
func (MergeConflict) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) { pr.Mergeable = MergeableStateConflicting })
}

// ConflictResolved makes the pull request mergeable again.
type ConflictResolved struct{}

// Describe implements Event.
func (ConflictResolved) Describe() string { return "the merge conflict is gone: mergeable again" }

// Apply implements Event.
func (ConflictResolved) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) { pr.Mergeable = MergeableStateMergeable })
}

// MergeableUnknown makes mergeability UNKNOWN: GitHub has not computed it, and does so only when
// asked (a REST GET of the pull request; see LazyMergeability.AfterGet), or on its own when
// WithLazyMergeability says so. It computes what it was before (mergeable when unknown).
type MergeableUnknown struct{}

// Describe implements Event.
func (MergeableUnknown) Describe() string { return "GitHub is recomputing mergeability (UNKNOWN)" }

// Apply implements Event.
func (MergeableUnknown) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) {
		pr.Mergeable, pr.Computing, pr.ComputedAt = MergeableStateUnknown, mergeabilityTruth(pr), time.Time{}
		if tx.f.lazy.OnItsOwn > 0 {
			pr.ComputedAt = tx.f.clock.now().Add(tx.f.lazy.OnItsOwn)
		}
	})
}

// BaseBranchMoved moves the base branch's tip on (someone merged into it): baseRef's target
// moves at once, the pull request's baseRefOid and updatedAt do not, mergeability is computed
// again (CONFLICTING with Conflict, else what it was; lazily with WithLazyMergeability), and the
// head is behind the base.
type BaseBranchMoved struct{ Conflict bool }

// Describe implements Event.
func (e BaseBranchMoved) Describe() string {
	if e.Conflict {
		return "the base branch moves on (a merge into it) and now conflicts with the head"
	}
	return "the base branch moves on (a merge into it)"
}

// Apply implements Event.
func (e BaseBranchMoved) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) {
		f := tx.f
		if pr.Repo.Tips == nil {
			pr.Repo.Tips = map[string]string{}
		}
		pr.Repo.Tips[pr.BaseRef] = f.ids.oid(pr.BaseRef + " tip")
		pr.Behind = true
		truth := mergeabilityTruth(pr)
		if e.Conflict {
			truth = MergeableStateConflicting
		}
		f.recomputeMergeabilityLocked(pr, truth)
	})
}

// BaseAdvanced moves the base branch ahead of the head without a conflict (merge state BEHIND).
type BaseAdvanced struct{}

// Describe implements Event.
func (BaseAdvanced) Describe() string { return "the base branch moves ahead (no conflict)" }

// Apply implements Event.
func (BaseAdvanced) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) { pr.Behind = true })
}

// RequireApprovals gives the base branch a rule requiring N approvals (0 removes it, and
// reviewDecision becomes null again).
type RequireApprovals struct{ N int }

// Describe implements Event.
func (e RequireApprovals) Describe() string {
	if e.N == 0 {
		return "the base branch no longer requires reviews"
	}
	return fmt.Sprintf("the base branch now requires %d approving review%s", e.N, plural(e.N, "", "s"))
}

// Apply implements Event.
func (e RequireApprovals) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) { pr.RequiredApprovals = e.N })
}

// BranchPolicy makes merges fail with HTTP 405 and Refusal as the message ("" lifts it).
type BranchPolicy struct{ Refusal string }

// Describe implements Event.
func (e BranchPolicy) Describe() string {
	if e.Refusal == "" {
		return "the branch policy no longer blocks merging"
	}
	return "a branch policy now blocks merging: " + strings.ReplaceAll(e.Refusal, "\n\n", ": ")
}

// Apply implements Event.
func (e BranchPolicy) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) { pr.MergeRefusal = e.Refusal })
}

// Merged merges the pull request outside prmonitor (someone pressed the button).
type Merged struct{ By Actor }

// Describe implements Event.
func (e Merged) Describe() string { return who(e.By, "a maintainer") + " merges the pull request" }

// Apply implements Event.
func (e Merged) Apply(tx *Tx) error {
	return tx.update(func(pr *PullRequest) {
		now := tx.f.clock.now()
		pr.State = PRStateMerged
		pr.MergedAt, pr.ClosedAt = now, now
		pr.MergedBy = e.By
		if pr.MergedBy.zero() {
			pr.MergedBy = pr.Author
		}
		pr.MergeCommitOID = tx.f.ids.oid("merge")
		pr.ReviewRequests = nil
		tx.f.afterMergeLocked(pr)
	})
}

// Closed closes the pull request without merging (outside prmonitor).
type Closed struct{ By Actor }

// Describe implements Event.
func (e Closed) Describe() string {
	return who(e.By, "a maintainer") + " closes the pull request without merging"
}

// Apply implements Event.
func (e Closed) Apply(tx *Tx) error {
	return tx.update(func(pr *PullRequest) {
		pr.State = PRStateClosed
		pr.ClosedAt = tx.f.clock.now()
	})
}

// Reopened reopens a closed pull request.
type Reopened struct{ By Actor }

// Describe implements Event.
func (e Reopened) Describe() string { return who(e.By, "a maintainer") + " reopens the pull request" }

// Apply implements Event.
func (e Reopened) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	if pr.State != PRStateClosed {
		return fmt.Errorf("githubfake: %s is %s, not closed", tx.ref, pr.State)
	}
	pr.State = PRStateOpen
	pr.ClosedAt = time.Time{}
	pr.UpdatedAt = tx.f.clock.now()
	return nil
}
