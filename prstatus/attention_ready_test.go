package prstatus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOpenThreadsOfEitherKindBlockReadyToMerge counts the unanswered and the reviewer-replied
// threads together: one of each must block the merge offer as surely as two of one kind, so the
// check cannot be an arithmetic that lets equal counts cancel out.
func TestOpenThreadsOfEitherKindBlockReadyToMerge(t *testing.T) {
	approvedGreen := func() *prBuilder { return green().review("alice", approved, "10:00") }
	unaddressed := say{who: "carol", when: "10:05"}
	replied := []say{{who: "carol", when: "10:06"}, {who: "dev", when: "10:10"}, {who: "carol", when: "10:20"}}
	tests := []struct {
		name      string
		pr        *prBuilder
		needs     int
		replied   int
		wantReady bool
	}{
		{name: "no open thread", pr: approvedGreen(), wantReady: true},
		{name: "one unaddressed", pr: approvedGreen().thread("T1", unaddressed), needs: 1},
		{name: "one reviewer-replied", pr: approvedGreen().thread("T2", replied...), replied: 1},
		{name: "one unaddressed and one reviewer-replied", pr: approvedGreen().thread("T1", unaddressed).thread("T2", replied...), needs: 1, replied: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.pr.derive()
			assert.Len(t, f.Threads.NeedsAction, tt.needs)
			assert.Len(t, f.Threads.ReviewerReplied, tt.replied)
			_, ready := attentionOf(f, AttentionReadyToMerge)
			assert.Equal(t, tt.wantReady, ready, "kinds %v", kinds(f))
		})
	}
}
