package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// TestTreatAsAddressedCountsAReplyAsAddressedWhateverTheTaskStoodFor: the recovery choice "treat
// as addressed", taken while the agent was composing a reply that stood in for "replied", posts
// (or composes) an addressed reply: the choice picks the reply kind, not the interrupted task.
func TestTreatAsAddressedCountsAReplyAsAddressedWhateverTheTaskStoodFor(t *testing.T) {
	toComposeReplied := func(t *testing.T) *drv {
		d := toApply(t)
		act := d.ev(EventCommentReplied, EventData{}) // no text: compose it
		requireExecute(t, act, TaskComposeReply, EventCommentReplied)
		require.Equal(t, prstatus.ReplyReplied, act.Context.ReplyKind)
		return d
	}
	t.Run("the wrong event carried the reply: it is posted as addressed", func(t *testing.T) {
		d := toComposeReplied(t)
		d.ev(EventTaskComplete, EventData{ReplyText: "Done."}) // the wrong completion event
		requireAsk(t, d.head(sha("c1")), elicitation.QRecovery, elicitation.TreatAsAddressed, elicitation.TreatAsReplied,
			elicitation.Skip, elicitation.BackToTask, elicitation.Resume, elicitation.Stop)
		req := requireServer(t, d.choose(elicitation.TreatAsAddressed), ServerPostReply)
		assert.Equal(t, prstatus.ReplyAddressed, req.Marker.Kind)
		assert.Equal(t, "Done.", req.Body)
		requireServer(t, d.ok(ServerPostReply), ServerResolveThread) // addressed threads are resolved
	})
	t.Run("no reply yet: an addressed one is composed", func(t *testing.T) {
		d := toComposeReplied(t)
		d.ev(EventTaskComplete, EventData{})
		d.head(sha("c1"))
		act := d.choose(elicitation.TreatAsAddressed)
		requireExecute(t, act, TaskComposeReply, EventCommentAddressed)
		assert.Equal(t, prstatus.ReplyAddressed, act.Context.ReplyKind)
		req := requireServer(t, d.ev(EventCommentAddressed, EventData{ReplyText: "Renamed."}), ServerPostReply)
		assert.Equal(t, prstatus.ReplyAddressed, req.Marker.Kind)
	})
}
