package dispatch

import (
	"fmt"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Whom the dispatcher works for, and whose words it believes (docs/security.md, "The
// dispatcher's trust boundary"). A worker runs a pull request's code with the user's
// credentials, so the dispatcher works only on pull requests and issues written by the user, by
// trusted_authors, or by people with write access; and only configured bots, people with write
// access and GitHub Apps can sign as a review bot.

// canWrite reports whether GitHub's author association means write access. A missing one (the
// field was not read) means none.
func canWrite(a prstatus.Association) bool {
	switch a {
	case prstatus.AssocOwner, prstatus.AssocMember, prstatus.AssocCollaborator:
		return true
	}
	return false
}

// trusts reports whether the dispatcher works for an author: the user, one of trusted_authors, or
// someone with write access.
func (c Config) trusts(a prstatus.Actor, assoc prstatus.Association) bool {
	return sameLogin(a.Login, c.User) || anyLogin(c.TrustedAuthors, a.Login) || canWrite(assoc)
}

// distrust says why the dispatcher leaves p alone, naming the author and association or the
// fork; "" when it works on p.
func (c Config) distrust(p *PR) string {
	if !c.trusts(p.Author, p.AuthorAssociation) {
		return fmt.Sprintf("by %s (%s), who has no write access and is neither the user nor one of trusted_authors",
			who(p.Author.Login), p.AuthorAssociation.Words())
	}
	if p.IsCrossRepository && !c.AllowForks {
		return "from a fork (isCrossRepository), and allow_forks is off"
	}
	if !prstatus.OwnHead(p.IsCrossRepository, p.Author.Login, p.HeadOwner) {
		return "from a fork its author does not own: allow_forks takes only an author's own fork"
	}
	return ""
}

// who shows a login in a reason: itself when it is a GitHub login (letters, digits, hyphens), else
// words, so that nothing else from GitHub stands in the dispatcher's sentences.
func who(l string) string {
	if isLogin(l) {
		return l
	}
	return "an author whose login is not a GitHub login"
}

// TakesIssue is rule 11's filter for the issues a run reads: issues written by people the
// dispatcher works for (the user, else the token's user viewer; trusted_authors; write access).
func TakesIssue(cfg Config, viewer string) func(Issue) bool {
	cfg = cfg.withUser(viewer)
	return func(is Issue) bool { return cfg.trusts(is.Author, is.AuthorAssociation) }
}

// signs reports whether review r may carry b's sentinel: posted by b's login when one is
// configured (a login written "name[bot]" is a GitHub App's, never a person's who registered the
// same name), else by someone with write access or by a GitHub App.
func (b ReviewBot) signs(r prstatus.Review) bool {
	if b.Login != "" {
		return b.is(r.Author)
	}
	return r.Author.IsBot || canWrite(r.AuthorAssociation)
}

// countsThread reports whether rule 9 counts a review thread: one opened by the trusted set or a
// configured bot (by its login; by any GitHub App when some configured bot has no login). A
// thread whose opener was not read is not counted.
func (c Config) countsThread(t prstatus.Thread) bool {
	if len(t.Comments) == 0 {
		return false
	}
	first := t.Comments[0]
	if c.trusts(first.Author, first.AuthorAssociation) {
		return true
	}
	for _, b := range c.ReviewBots {
		if (b.Login != "" && b.is(first.Author)) || (b.Login == "" && first.Author.IsBot) {
			return true
		}
	}
	return false
}

// is reports whether a is the account of b's configured login.
func (b ReviewBot) is(a prstatus.Actor) bool {
	return sameLogin(a.Login, b.Login) && (!isAppLogin(b.Login) || a.IsBot || isAppLogin(a.Login))
}

// isAppLogin reports whether a login is a GitHub App's bot account in REST's form ("name[bot]"),
// which no person's login can be.
func isAppLogin(l string) bool { return strings.HasSuffix(strings.ToLower(l), "[bot]") }
