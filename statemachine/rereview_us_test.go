package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// TestReReviewIsNeverRequestedFromUs: when every thread of the flow is answered, its reviewers
// are asked to look again, but never the PR's author or the token's own account, whatever the
// case or [bot] suffix of the login. A thread we started and someone answered has us as its
// reviewer (the author of its first comment).
func TestReReviewIsNeverRequestedFromUs(t *testing.T) {
	tests := []struct {
		starter string
		want    []string // nil: no review request
	}{
		{starter: "carol", want: []string{"carol"}}, // the control: a reviewer's thread
		{starter: "dev"}, // the PR's author
		{starter: "DEV"},
		{starter: "dev[bot]"},
		{starter: "maintainer"}, // the token's account
		{starter: "Maintainer[bot]"},
	}
	for _, tt := range tests {
		t.Run(tt.starter, func(t *testing.T) {
			p := newPR().thread("T1", tt.starter, "a.go", 1, "rename this").reply("T1", "bob", "yes, please")
			p.s.Viewer = "maintainer" // the token's account; the author is dev
			// Whoever started it counts as able to review (a bot's App installed with write access,
			// say): the rule under test is about whom, not whether.
			p.s.Threads[0].Comments[0].AuthorAssociation = prstatus.AssocMember
			d := start(t)
			requireExecute(t, d.poll(p), TaskExplainComment)
			require.Equal(t, ActionAskUser, d.ev(EventTaskComplete, EventData{Recommendation: "rename"}).Kind)
			requireExecute(t, d.choose(elicitation.Address), TaskAddressComment)
			requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "Renamed."}), ServerPostReply)
			requireServer(t, d.ok(ServerPostReply), ServerResolveThread)
			act := d.ok(ServerResolveThread)
			if tt.want == nil {
				require.Equal(t, ActionPolling, act.Kind, "no review request: %+v", act.Server)
				return
			}
			req := requireServer(t, act, ServerRequestReview)
			assert.Equal(t, tt.want, req.Reviewers)
		})
	}
}
