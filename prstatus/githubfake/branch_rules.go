package githubfake

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// What a base branch requires before a merge: a classic branch protection rule and the rules of
// rulesets. GitHub shows the protection rule to administrators only (Ref.branchProtectionRule);
// everyone else reads GitHub's view of it (Ref.refUpdateRule), and anyone who can read the
// repository reads the rulesets' rules (Ref.rules). The fake's viewer is an administrator unless
// WithoutAdmin says otherwise.

// BranchRules is what a branch protection rule or a ruleset requires.
type BranchRules struct {
	// RequiredChecks are the status check contexts that must pass: check run names or commit
	// status contexts.
	RequiredChecks []string
	// Strict: the branch must be up to date with its base before merging.
	Strict bool
	// RequiredApprovals is how many approving reviews (from people with write access) a merge
	// needs.
	RequiredApprovals int
	// CodeOwnerReviews: a code owner must approve.
	CodeOwnerReviews bool
	// ConversationResolution: every review thread must be resolved before merging.
	ConversationResolution bool
}

// Ruleset is an active ruleset's rules for the branches it names. MergeQueue makes merges go
// through the branch's merge queue.
type Ruleset struct {
	Branches []string
	BranchRules
	MergeQueue bool
}

// ProtectBranch gives the pull request's base branch a classic protection rule (replacing any),
// or removes it when Rules is nil.
type ProtectBranch struct{ Rules *BranchRules }

// Describe implements Event.
func (e ProtectBranch) Describe() string {
	if e.Rules == nil {
		return "the base branch is no longer protected"
	}
	return "the base branch is protected: " + e.Rules.describe()
}

// Apply implements Event.
func (e ProtectBranch) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) {
		repo := pr.Repo
		if repo.Protections == nil {
			repo.Protections = map[string]*BranchRules{}
		}
		if e.Rules == nil {
			delete(repo.Protections, pr.BaseRef)
			return
		}
		r := *e.Rules
		repo.Protections[pr.BaseRef] = &r
	})
}

// AddRuleset adds an active ruleset for the pull request's base branch.
type AddRuleset struct {
	BranchRules
	MergeQueue bool
}

// Describe implements Event.
func (e AddRuleset) Describe() string {
	d := "a ruleset now applies to the base branch: " + e.describe()
	if e.MergeQueue {
		d += ", merges through a merge queue"
	}
	return d
}

// Apply implements Event.
func (e AddRuleset) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) {
		pr.Repo.Rulesets = append(pr.Repo.Rulesets, &Ruleset{Branches: []string{pr.BaseRef}, BranchRules: e.BranchRules, MergeQueue: e.MergeQueue})
	})
}

// AllowAutoMerge switches the repository's "Allow auto-merge" setting.
type AllowAutoMerge struct{ Allowed bool }

// Describe implements Event.
func (e AllowAutoMerge) Describe() string {
	if e.Allowed {
		return "the repository now allows auto-merge"
	}
	return "the repository no longer allows auto-merge"
}

// Apply implements Event.
func (e AllowAutoMerge) Apply(tx *Tx) error {
	return tx.recompute(func(pr *PullRequest) { pr.Repo.AutoMergeAllowed = e.Allowed })
}

func (r BranchRules) describe() string {
	var parts []string
	if len(r.RequiredChecks) > 0 {
		parts = append(parts, "requires checks "+strings.Join(r.RequiredChecks, ", "))
	}
	if r.Strict {
		parts = append(parts, "up to date before merging")
	}
	if r.RequiredApprovals > 0 {
		parts = append(parts, fmt.Sprintf("%d approving review%s", r.RequiredApprovals, plural(r.RequiredApprovals, "", "s")))
	}
	if r.CodeOwnerReviews {
		parts = append(parts, "code owners' review")
	}
	if r.ConversationResolution {
		parts = append(parts, "resolved conversations")
	}
	if len(parts) == 0 {
		return "nothing in particular"
	}
	return strings.Join(parts, ", ")
}

// rulesets are the rulesets that apply to a branch.
func rulesets(repo *Repository, branch string) []*Ruleset {
	var out []*Ruleset
	for _, rs := range repo.Rulesets {
		if slices.Contains(rs.Branches, branch) {
			out = append(out, rs)
		}
	}
	return out
}

// baseRules is everything the pull request's base branch requires, protection and rulesets
// together.
func baseRules(pr *PullRequest) (rules BranchRules, mergeQueue bool) {
	all := []BranchRules{}
	if p := pr.Repo.Protections[pr.BaseRef]; p != nil {
		all = append(all, *p)
	}
	for _, rs := range rulesets(pr.Repo, pr.BaseRef) {
		all = append(all, rs.BranchRules)
		mergeQueue = mergeQueue || rs.MergeQueue
	}
	for _, r := range all {
		rules.RequiredChecks = append(rules.RequiredChecks, r.RequiredChecks...)
		rules.Strict = rules.Strict || r.Strict
		rules.RequiredApprovals = max(rules.RequiredApprovals, r.RequiredApprovals)
		rules.CodeOwnerReviews = rules.CodeOwnerReviews || r.CodeOwnerReviews
		rules.ConversationResolution = rules.ConversationResolution || r.ConversationResolution
	}
	sort.Strings(rules.RequiredChecks)
	rules.RequiredChecks = slices.Compact(rules.RequiredChecks)
	return rules, mergeQueue
}

// requiredByBase reports whether the base branch requires the check context name.
func requiredByBase(pr *PullRequest, name string) bool {
	if pr == nil {
		return false
	}
	if p := pr.Repo.Protections[pr.BaseRef]; p != nil && slices.Contains(p.RequiredChecks, name) {
		return true
	}
	for _, rs := range pr.Repo.Rulesets {
		if slices.Contains(rs.Branches, pr.BaseRef) && slices.Contains(rs.RequiredChecks, name) {
			return true
		}
	}
	return false
}

// requiredNotPassing names the required checks of the head that have not passed, or not
// reported at all. Only each check's latest run counts, as on GitHub (superseded runs are not in
// Commit.CheckRuns).
func requiredNotPassing(pr *PullRequest) []string {
	rules, _ := baseRules(pr)
	required := slices.Clone(rules.RequiredChecks)
	seen, failing := map[string]bool{}, map[string]bool{}
	note := func(name string, ok, isRequired bool) {
		seen[name] = true
		failing[name] = failing[name] || !ok
		if isRequired {
			required = append(required, name)
		}
	}
	if head := pr.Head(); head != nil {
		for _, cr := range head.CheckRuns {
			note(cr.Name, cr.outcome() == outcomeSuccess, cr.IsRequired)
		}
		for _, s := range head.Statuses {
			note(s.Context, s.outcome() == outcomeSuccess, s.IsRequired)
		}
	}
	sort.Strings(required)
	var out []string
	for _, name := range slices.Compact(required) {
		if !seen[name] || failing[name] {
			out = append(out, name)
		}
	}
	return out
}

// unresolvedThreads counts the pull request's unresolved review threads.
func unresolvedThreads(pr *PullRequest) int {
	n := 0
	for _, t := range pr.Threads {
		if !t.IsResolved {
			n++
		}
	}
	return n
}

// codeOwnerPending reports whether a review requested from a code owner is still pending.
func codeOwnerPending(pr *PullRequest) bool {
	for _, rr := range pr.ReviewRequests {
		if rr.AsCodeOwner {
			return true
		}
	}
	return false
}

// protectionObject is Ref.branchProtectionRule (administrators) or Ref.refUpdateRule
// (everyone), as GitHub shows the base branch's protection rule.
func protectionObject(typ, branch string, r *BranchRules) *staticObject {
	if r == nil {
		return nil
	}
	contexts := toAny(r.RequiredChecks)
	fields := map[string]any{
		"pattern":                        branch,
		"requiredStatusCheckContexts":    contexts,
		"requiredApprovingReviewCount":   r.RequiredApprovals,
		"requiresCodeOwnerReviews":       r.CodeOwnerReviews,
		"requiresConversationResolution": r.ConversationResolution,
	}
	switch typ {
	case "BranchProtectionRule":
		fields["requiresStatusChecks"] = len(r.RequiredChecks) > 0
		fields["requiresStrictStatusChecks"] = r.Strict
		fields["requiresApprovingReviews"] = r.RequiredApprovals > 0
	case "RefUpdateRule":
		fields["viewerCanPush"] = true
	}
	return static(typ, fields)
}

// ruleNodes are Ref.rules: one RepositoryRule per requirement of each ruleset that applies.
func ruleNodes(repo *Repository, branch string) []any {
	var out []any
	for i, rs := range rulesets(repo, branch) {
		id := fmt.Sprintf("RRU_%d_", i)
		if len(rs.RequiredChecks) > 0 {
			checks := make([]any, len(rs.RequiredChecks))
			for j, c := range rs.RequiredChecks {
				checks[j] = static("StatusCheckConfiguration", map[string]any{"context": c, "integrationId": nil})
			}
			out = append(out, repoRule(id+"checks", "REQUIRED_STATUS_CHECKS", static("RequiredStatusChecksParameters", map[string]any{
				"requiredStatusChecks": checks, "strictRequiredStatusChecksPolicy": rs.Strict, "doNotEnforceOnCreate": false,
			})))
		}
		if rs.RequiredApprovals > 0 || rs.CodeOwnerReviews || rs.ConversationResolution {
			out = append(out, repoRule(id+"pr", "PULL_REQUEST", static("PullRequestParameters", map[string]any{
				"requiredApprovingReviewCount": rs.RequiredApprovals, "requireCodeOwnerReview": rs.CodeOwnerReviews,
				"requiredReviewThreadResolution": rs.ConversationResolution, "dismissStaleReviewsOnPush": false,
				"requireLastPushApproval": false,
			})))
		}
		if rs.MergeQueue {
			out = append(out, repoRule(id+"queue", "MERGE_QUEUE", nil))
		}
	}
	return out
}

func repoRule(id, typ string, params *staticObject) *staticObject {
	fields := map[string]any{"id": id, "type": typ, "parameters": nil}
	if params != nil {
		fields["parameters"] = params
	}
	return static("RepositoryRule", fields)
}
