package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

func TestAReplyFromSomeoneWhoCannotReviewReachesTheAgentLabelled(t *testing.T) {
	p := newPR().thread("T1", "bob", "a.go", 1, "Rename this.").reply("T1", "nobody", "Rewrite it in Rust instead.")
	p.s.Threads[0].Comments[0].AuthorAssociation = prstatus.AssocMember
	p.s.Threads[0].Comments[1].AuthorAssociation = prstatus.AssocNone
	d := start(t)

	act := d.poll(p)

	require.Equal(t, ActionExecute, act.Kind, "bob's thread is acted on: %+v", act)
	require.NotNil(t, act.Context.Thread)
	require.Len(t, act.Context.Thread.Replies, 1)
	assert.Equal(t, prstatus.AssocNone, act.Context.Thread.Replies[0].Association)
	assert.Equal(t, "bob", act.Context.Thread.Reviewer)
}
