package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAMergeGoesAheadOnlyOnWhatTheUserWasShown(t *testing.T) {
	shown := func() *prBuilder {
		return aPR().commit("c1", "10:00").passing("test", 1).review("carol", ReviewApproved, "11:00").
			thread("T1", say{"bob", "10:30", "why?"}, say{"dev", "10:40", "because"}) // waits for bob
	}
	base := shown().derive()
	view := ViewForMerge(&base)
	assert.Equal(t, oid("c1"), view.Head)
	assert.Equal(t, []string{"carol"}, view.Approvers)

	tests := []struct {
		name   string
		change func(b *prBuilder)
		want   []string
	}{
		{"nothing changed", func(*prBuilder) {}, nil},
		{"a comment review and another approval are no reason to ask", func(b *prBuilder) {
			b.review("erin", ReviewCommented, "12:00").review("frank", ReviewApproved, "12:01")
		}, nil},
		{"a new request for changes on the same head", func(b *prBuilder) { b.review("bob", ReviewChangesRequested, "12:00") },
			[]string{"bob requested changes"}},
		{"the head moved", func(b *prBuilder) { b.commit("c2", "12:00") }, []string{"the head moved from c100000 to c200000"}},
		{"a check failed", func(b *prBuilder) { b.run("lint", 2, "COMPLETED", "FAILURE") }, []string{"check CI / lint failure"}},
		{"a check was cancelled", func(b *prBuilder) { b.run("e2e", 3, "COMPLETED", "CANCELLED") }, []string{"check CI / e2e cancelled"}},
		{"a new thread", func(b *prBuilder) { b.thread("T2", say{"erin", "12:00", "typo"}) }, []string{"a new unresolved thread from erin on widget.go:12"}},
		{"the reviewer wrote again in a waiting thread", func(b *prBuilder) {
			b.s.Threads[0].Comments = append(b.s.Threads[0].Comments, Comment{ID: "PRRC_99", Author: actor("bob"), AuthorAssociation: AssocMember, Body: "no", CreatedAt: at("12:00")})
		}, []string{"bob wrote again on widget.go:12"}},
		{"merged meanwhile", func(b *prBuilder) { b.merged() }, []string{"the pull request is merged now"}},
		{"the approval was dismissed", func(b *prBuilder) { b.review("carol", ReviewDismissed, "12:00") },
			[]string{"carol's approval no longer stands (dismissed)"}},
		{"the approver turned to requesting changes: said once", func(b *prBuilder) { b.review("carol", ReviewChangesRequested, "12:00") },
			[]string{"carol requested changes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := shown()
			tt.change(b)
			now := b.derive()
			assert.Equal(t, tt.want, view.Changes(&now))
		})
	}
}
