package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClassifyCommit(t *testing.T) {
	tests := []struct {
		name string
		c    Commit
		want CommitKind
	}{
		{name: "ordinary", c: Commit{Headline: "Fix the widget", ParentCount: 1, AuthoredDate: at("10:00"), CommittedDate: at("10:00")}, want: CommitSubstantive},
		{name: "committed within the minute", c: Commit{Headline: "Fix", ParentCount: 1, AuthoredDate: at("10:00"), CommittedDate: at("10:01")}, want: CommitSubstantive},
		{name: "committed long after it was authored", c: Commit{Headline: "Fix", ParentCount: 1, AuthoredDate: at("10:00"), CommittedDate: at("10:02")}, want: CommitRebased},
		{name: "two parents", c: Commit{Headline: "Fix", ParentCount: 2, AuthoredDate: at("10:00"), CommittedDate: at("10:00")}, want: CommitMerge},
		{name: "octopus", c: Commit{Headline: "Fix", ParentCount: 3}, want: CommitMerge},
		{name: "Merge branch", c: Commit{Headline: "Merge branch 'main' into feature", ParentCount: 1}, want: CommitMerge},
		{name: "Merge remote-tracking branch", c: Commit{Headline: "Merge remote-tracking branch 'origin/main'", ParentCount: 1}, want: CommitMerge},
		{name: "Merge pull request", c: Commit{Headline: "Merge pull request #12 from acme/x", ParentCount: 1}, want: CommitMerge},
		{name: "a merge that was rebased is still a merge", c: Commit{Headline: "Merge branch 'main'", ParentCount: 2, AuthoredDate: at("09:00"), CommittedDate: at("11:00")}, want: CommitMerge},
		{name: "'Merge' as a word of an ordinary headline", c: Commit{Headline: "Merge the two parsers", ParentCount: 1}, want: CommitSubstantive},
		{name: "'Merge branches' is not the git headline", c: Commit{Headline: "Merge branches of the tree walker", ParentCount: 1}, want: CommitSubstantive},
		{name: "lower-case merge is not git's headline", c: Commit{Headline: "merge branch 'main'", ParentCount: 1}, want: CommitSubstantive},
		{name: "no parents reported", c: Commit{Headline: "Initial", ParentCount: 0}, want: CommitSubstantive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, classifyCommit(tt.c))
		})
	}
}

func TestNewestAnswer(t *testing.T) {
	commits := deriveCommits([]Commit{
		{OID: "b", AuthoredDate: at("10:00"), CommittedDate: at("10:00"), ParentCount: 1},
		{OID: "m", AuthoredDate: at("12:00"), CommittedDate: at("12:00"), ParentCount: 2},
		{OID: "r", AuthoredDate: at("09:00"), CommittedDate: at("13:00"), ParentCount: 1},
		{OID: "a", AuthoredDate: at("10:00"), CommittedDate: at("10:00"), ParentCount: 1},
		{OID: "z", ParentCount: 1},
	})
	i := newestAnswer(commits)
	assert.Equal(t, "b", commits[i].OID, "the newest author date, a merge never, ties to the larger oid, no date never")
	assert.Equal(t, -1, newestAnswer(nil))
}
