package prstatus

import (
	"regexp"
	"sync"
	"time"
)

// mergeHeadline matches the headlines git and GitHub write for merge commits. A squashed or
// rebased merge loses its second parent but keeps this headline, so it is checked as well.
var mergeHeadline = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Merge (branch|remote-tracking|pull request)\b`) })

// rewriteSlack is how far a commit's committer date may trail its author date before the commit
// counts as rewritten. A plain `git commit` stamps both within the same second; a rebase, an amend
// or a cherry-pick keeps the author date and moves the committer date.
const rewriteSlack = time.Minute

// classifyCommit tells merges (which never answer a review) from rewritten commits (which count by
// their author date) and ordinary ones.
func classifyCommit(c Commit) CommitKind {
	if c.ParentCount > 1 || mergeHeadline().MatchString(c.Headline) {
		return CommitMerge
	}
	if c.CommittedDate.Sub(c.AuthoredDate) > rewriteSlack {
		return CommitRebased
	}
	return CommitSubstantive
}

// deriveCommits classifies every commit, in the PR's order (oldest first).
func deriveCommits(in []Commit) []CommitFact {
	out := make([]CommitFact, len(in))
	for i, c := range in {
		out[i] = CommitFact{
			OID:           c.OID,
			Headline:      c.Headline,
			Kind:          classifyCommit(c),
			AuthoredDate:  c.AuthoredDate,
			CommittedDate: c.CommittedDate,
		}
	}
	return out
}

// CountsAsAnswer reports whether the commit can answer a review: every commit but a merge. A
// rewritten commit counts too, but by its author date.
func (c CommitFact) CountsAsAnswer() bool { return c.Kind != CommitMerge && !c.AuthoredDate.IsZero() }

// newestAnswer returns the index of the non-merge commit with the newest author date, or -1. Ties
// go to the larger OID so the answer does not depend on the order GitHub listed the commits in.
func newestAnswer(commits []CommitFact) int {
	best := -1
	for i, c := range commits {
		if !c.CountsAsAnswer() {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := commits[best]
		if c.AuthoredDate.After(b.AuthoredDate) || (c.AuthoredDate.Equal(b.AuthoredDate) && c.OID > b.OID) {
			best = i
		}
	}
	return best
}
