package statemachine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
)

// Guards written as alternatives ("neither of the above", "several" against "one") hold one at a
// time: the table fires the first row whose guard holds, so an overlap would go unseen in the
// flows while the generated docs promised otherwise.

func holding(s *step, gs ...Guard) []Guard {
	var out []Guard
	for _, g := range gs {
		if guards[g].holds(s, "") {
			out = append(out, g)
		}
	}
	return out
}

func TestTheRecoveryGuardsHoldOneAtATime(t *testing.T) {
	moved := &HeadRefresh{OK: true, SHA: sha("c2")}
	same := &HeadRefresh{OK: true, SHA: sha("c1")}
	task := func(name TaskName) Task { return Task{Name: name, HeadSnapshot: sha("c1")} }
	for _, tt := range []struct {
		name string
		rec  RecoveryState
		head *HeadRefresh
		want Guard
	}{
		{"a ready for a task the agent may not have had, nothing pushed", RecoveryState{Unseen: true, Task: task(TaskAddressComment)}, same, GuardUnseenAndUnpushed},
		{"a push that completes the task", RecoveryState{Task: task(TaskAddressComment)}, moved, GuardPushCompletesTask},
		{"an unseen task completed by a push", RecoveryState{Unseen: true, Task: task(TaskApplyFix)}, moved, GuardPushCompletesTask},
		{"a push that does not complete the task", RecoveryState{Task: task(TaskExplainComment)}, moved, GuardRecoveryNeedsUser},
		{"no push, the task was seen", RecoveryState{Task: task(TaskAddressComment)}, same, GuardRecoveryNeedsUser},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &step{rec: &tt.rec, in: HeadInput(*tt.head), pos: Position{Node: NodeCommentsRecovering}}
			assert.Equal(t, []Guard{tt.want}, holding(s, GuardUnseenAndUnpushed, GuardPushCompletesTask, GuardRecoveryNeedsUser))
		})
	}
}

func TestOneThreadAndSeveralThreadsHoldOneAtATime(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *pr
		want Guard
	}{
		{"one new thread", newPR().thread("T1", "bob", "a.go", 1, "x"), GuardOneThreadOrAReply},
		{"two new threads", newPR().thread("T1", "bob", "a.go", 1, "x").thread("T2", "eve", "b.go", 2, "y"), GuardSeveralThreads},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.p.facts()
			require.Equal(t, prstatus.AttentionNewComments, f.Attentions[0].Kind)
			s := &step{facts: &f, att: &f.Attentions[0]}
			assert.Equal(t, []Guard{tt.want}, holding(s, GuardOneThreadOrAReply, GuardSeveralThreads))
		})
	}
}

func TestAskingForReviewAgainOrNotHoldOneAtATime(t *testing.T) {
	threads := []ThreadContext{{ID: "T1", Reviewer: "bob"}, {ID: "T2", Reviewer: "eve"}}
	for _, tt := range []struct {
		name    string
		handled map[string]string
		mode    CommentMode
		want    Guard
	}{
		{"nobody's threads were answered", map[string]string{"T1": handledSkipped}, ModeAddressAll, GuardNoReReview},
		{"bob's thread was answered", map[string]string{"T1": handledAddressed}, ModeAddressAll, GuardReviewersAllAnswered},
		{"the user handled the comments", map[string]string{"T1": handledAddressed}, ModeManual, GuardNoReReview},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &step{pos: Position{Head: sha("c1"), Monitor: Monitor{Author: "dev", Viewer: "dev"},
				Comments: &CommentsState{Threads: threads, Handled: tt.handled, Mode: tt.mode}}}
			assert.Equal(t, []Guard{tt.want}, holding(s, GuardNoReReview, GuardReviewersAllAnswered))
		})
	}
}
