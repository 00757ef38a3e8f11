package prstatus

import (
	"slices"
	"strings"
)

// Association is GitHub's CommentAuthorAssociation: how the author of a review or comment relates
// to the repository.
type Association string

// The associations GitHub reports. Only OWNER, MEMBER and COLLABORATOR can review: their
// approvals count toward branch protection, and their requests for changes are acted on.
const (
	AssocOwner                Association = "OWNER"
	AssocMember               Association = "MEMBER"
	AssocCollaborator         Association = "COLLABORATOR"
	AssocContributor          Association = "CONTRIBUTOR"
	AssocFirstTimeContributor Association = "FIRST_TIME_CONTRIBUTOR"
	AssocFirstTimer           Association = "FIRST_TIMER"
	AssocMannequin            Association = "MANNEQUIN"
	AssocNone                 Association = "NONE"
)

// Words renders the association for a person to read: "a member", "no association".
func (a Association) Words() string {
	switch a {
	case AssocOwner:
		return "the repository owner"
	case AssocMember:
		return "a member"
	case AssocCollaborator:
		return "a collaborator"
	case AssocContributor:
		return "a past contributor"
	case AssocFirstTimeContributor:
		return "a first-time contributor"
	case AssocFirstTimer:
		return "a first-time GitHub user"
	case AssocMannequin:
		return "an imported placeholder account"
	case AssocNone, "":
		return "no association with the repository"
	}
	return "an unknown association"
}

// CanWrite reports whether the association means write access to the repository: an owner, a
// member or a collaborator. A missing association (not read) is none: its absence proves nothing,
// and nothing unproven is worked on (docs/security.md).
func (a Association) CanWrite() bool {
	switch a {
	case AssocOwner, AssocMember, AssocCollaborator:
		return true
	}
	return false
}

// DefaultReviewBots are the review bots whose feedback is acted on unless configured otherwise:
// GitHub Copilot's code review and CodeRabbit. A GitHub App has no association with a repository
// (GitHub reports NONE), so a bot is trusted only by name.
func DefaultReviewBots() []string {
	return []string{"copilot-pull-request-reviewer", "coderabbitai"}
}

// ReviewerPolicy says whose review feedback is acted on: people who can review (OWNER, MEMBER,
// COLLABORATOR) and the listed review bots. Everyone else's feedback is still reported (Facts'
// FromOthers lists), but it never becomes a task and never blocks a merge.
type ReviewerPolicy struct {
	// Bots are review bots' logins, with or without "[bot]", compared case-insensitively.
	Bots []string `json:"bots"`
}

// DefaultReviewerPolicy trusts the people who can review and DefaultReviewBots.
func DefaultReviewerPolicy() ReviewerPolicy { return ReviewerPolicy{Bots: DefaultReviewBots()} }

// CanReview reports whether feedback by this author is acted on: an owner's, a member's, a
// collaborator's, or a listed review bot's (its app's account: isBotAccount). A missing association is none: GitHub always reports
// one, so its absence proves nothing about the author, and nothing unproven is acted on
// (docs/security.md, "Whose feedback counts").
func (p ReviewerPolicy) CanReview(a Actor, assoc Association) bool {
	if assoc.CanWrite() {
		return true
	}
	k := accountKey(a.Login)
	return k != "" && isBotAccount(a) && slices.ContainsFunc(p.Bots, func(b string) bool { return accountKey(strings.TrimSpace(b)) == k })
}

// isBotAccount reports whether a is a GitHub App's account: GraphQL says Bot, REST writes
// "name[bot]", a suffix no person's login can have. A listed bot's name counts only on its app:
// a person may register the same name as a user login ("sonnet-reviewer"), a different account.
func isBotAccount(a Actor) bool {
	return a.IsBot || strings.HasSuffix(strings.ToLower(a.Login), "[bot]")
}

// OwnHead reports whether a pull request's code is its author's to push: a branch of the
// repository itself (not cross-repository), or a fork the author owns. A fork someone else owns
// holds code that someone else can push at any moment, and a deleted fork (no owner) cannot be
// told apart from one: neither counts (docs/security.md, "Whose pull requests are monitored").
func OwnHead(crossRepository bool, author, headOwner string) bool {
	return !crossRepository || (headOwner != "" && accountKey(headOwner) == accountKey(author))
}
