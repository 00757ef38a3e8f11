package statemachine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

type reacher struct {
	id    elicitation.QuestionID
	name  string
	reach func(t *testing.T) *drv
}

// reachers bring a machine to each question of the catalogue, offering as many of its choices as
// any real situation can.
func reachers() []reacher {
	adminCfg := DefaultConfig()
	adminCfg.AllowAdminMerge = true
	return []reacher{
		{elicitation.QCommentsMulti, "multi", func(t *testing.T) *drv { d := start(t); d.poll(threePR()); return d }},
		{elicitation.QCommentSingle, "single reply", func(t *testing.T) *drv {
			d := start(t)
			d.poll(newPR().thread("T1", "bob", "a.go", 1, "why").reply("T1", "dev", "because").reply("T1", "bob", "ok"))
			d.ev(EventTaskComplete, EventData{Recommendation: "resolve it"})
			return d
		}},
		{elicitation.QCommentItem, "item", func(t *testing.T) *drv { d := start(t); d.poll(threePR()); d.choose(elicitation.AddressAll); return d }},
		{elicitation.QCommentExplained, "explained", func(t *testing.T) *drv {
			d := start(t)
			d.poll(threePR())
			d.choose(elicitation.ExplainAll)
			d.ev(EventTaskComplete, EventData{Recommendation: "agree"})
			return d
		}},
		{elicitation.QCommentPick, "pick", func(t *testing.T) *drv {
			d := start(t)
			d.poll(threePR())
			d.choose(elicitation.AddressSpecific)
			return d
		}},
		{elicitation.QCommentsRemaining, "remaining", func(t *testing.T) *drv {
			d := start(t)
			d.poll(threePR())
			d.choose(elicitation.AddressSpecific)
			d.choose(elicitation.Pick(1))
			d.ev(EventTaskComplete, EventData{})
			d.choose(elicitation.Skip)
			return d
		}},
		{elicitation.QCommentsManual, "manual", func(t *testing.T) *drv {
			d := start(t)
			d.poll(threePR())
			d.choose(elicitation.HandleMyself)
			return d
		}},
		{elicitation.QRefineStalled, "stalled", func(t *testing.T) *drv {
			d := start(t)
			d.poll(crPR())
			d.ev(EventTaskComplete, EventData{})
			d.poll(crPR())
			return d
		}},
		{elicitation.QCIResults, "results", func(t *testing.T) *drv {
			d := start(t)
			d.poll(newPR().failing())
			d.ok(ServerFetchCILogs)
			d.ev(EventInvestigationComplete, EventData{Findings: "f", SuggestedFix: "fix"})
			return d
		}},
		{elicitation.QCICancelled, "cancelled", func(t *testing.T) *drv {
			d := start(t)
			d.poll(newPR().checks(check("test", "COMPLETED", "CANCELLED", 1001, 101)))
			return d
		}},
		{elicitation.QMergeConflict, "conflict", func(t *testing.T) *drv { d := start(t); d.poll(newPR().conflict()); return d }},
		{elicitation.QReadyToMerge, "ready", func(t *testing.T) *drv { d := start(t); d.poll(approvedPR()); return d }},
		{elicitation.QMergeRefused, "refused", func(t *testing.T) *drv {
			d := newDriver(t, adminCfg)
			d.poll(approvedPR())
			d.choose(elicitation.Merge)
			d.send(OutcomeInput(Outcome{Kind: ServerMerge, Refused: true, Error: "policy"}))
			return d
		}},
		{elicitation.QReadyToMerge, "ready but behind", func(t *testing.T) *drv { d := start(t); d.poll(behindPR()); return d }},
		{elicitation.QReadyToMerge, "ready, GitHub holding the merge", func(t *testing.T) *drv { d := start(t); d.poll(heldPR()); return d }},
		{elicitation.QMergeWhenReady, "checks still running", func(t *testing.T) *drv { d := start(t); d.poll(whenReadyPR()); return d }},
		{elicitation.QMergeRefused, "auto-merge refused", func(t *testing.T) *drv {
			d := start(t)
			d.poll(whenReadyPR())
			d.choose(elicitation.AutoMerge)
			d.send(OutcomeInput(Outcome{Kind: ServerEnableAutoMerge, Refused: true, Error: "Pull request is in clean status"}))
			return d
		}},
		{elicitation.QAutoMergeOff, "auto-merge turned off on news", func(t *testing.T) *drv {
			d := start(t)
			d.poll(whenReadyPR())
			d.choose(elicitation.AutoMerge)
			d.ok(ServerEnableAutoMerge)
			d.poll(autoMergedPR().push("c2"))
			d.ok(ServerDisableAutoMerge)
			return d
		}},
		{elicitation.QMergeRefused, "refused as behind", func(t *testing.T) *drv {
			d := start(t)
			d.poll(behindPR())
			d.choose(elicitation.Merge)
			d.send(OutcomeInput(Outcome{Kind: ServerMerge, Refused: true, Error: "Head branch is not up to date with the base branch"}))
			return d
		}},
		{elicitation.QActionFailed, "failed branch update", func(t *testing.T) *drv {
			d := start(t)
			d.poll(behindPR())
			d.choose(elicitation.UpdateBranch)
			d.fail(ServerUpdateBranch, "502")
			return d
		}},
		{elicitation.QReadyStacked, "stacked", func(t *testing.T) *drv {
			d := start(t)
			d.poll(approvedPR().stackedOn("aa1"))
			return d
		}},
		{elicitation.QCIBaseFailing, "failing on the base too", func(t *testing.T) *drv {
			d := start(t)
			d.poll(newPR().failing().baseFailing("test"))
			return d
		}},
		{elicitation.QStaleApproval, "stale", func(t *testing.T) *drv { d := start(t); d.poll(approvedPR().push("c2")); return d }},
		{elicitation.QRecovery, "recovery in comments", func(t *testing.T) *drv {
			d := toApply(t)
			d.ev(EventReady, EventData{})
			d.head(sha("c1"))
			return d
		}},
		{elicitation.QRecovery, "recovery of a push", func(t *testing.T) *drv {
			d := start(t)
			d.poll(newPR().conflict())
			d.choose(elicitation.Rebase)
			d.ev(EventReady, EventData{})
			d.head(sha("c1"))
			return d
		}},
		{elicitation.QActionFailed, "failed reply", func(t *testing.T) *drv {
			d := toApply(t)
			d.ev(EventCommentAddressed, EventData{ReplyText: "x"})
			d.fail(ServerPostReply, "502")
			return d
		}},
		{elicitation.QActionFailed, "failed merge", func(t *testing.T) *drv {
			d := start(t)
			d.poll(approvedPR())
			d.choose(elicitation.Merge)
			d.fail(ServerMerge, "502")
			return d
		}},
	}
}

// TestEveryChoiceHasAHandler walks the catalogue: every choice any question can offer is answered
// from a saved position, and handled without error, with a consistent result.
func TestEveryChoiceHasAHandler(t *testing.T) {
	offered := map[elicitation.QuestionID]map[elicitation.Value]bool{}
	for _, r := range reachers() {
		t.Run(string(r.id)+"/"+r.name, func(t *testing.T) {
			d := r.reach(t)
			q := d.m.pos.Question
			require.NotNil(t, q)
			require.Equal(t, r.id, q.ID)
			saved := d.m.Position()
			for _, c := range q.Choices {
				if offered[q.ID] == nil {
					offered[q.ID] = map[elicitation.Value]bool{}
				}
				if _, isPick := elicitation.PickIndex(c.Value); !isPick {
					offered[q.ID][c.Value] = true
				}
				m, err := Restore(d.m.cfg, saved)
				require.NoError(t, err)
				act, err := m.Step(d.now, ChoiceInput(c.Value).From(ByUser))
				require.NoError(t, err, "%s → %s", q.ID, c.Value)
				assertConsistent(t, m, act)
			}
		})
	}
	for _, spec := range elicitation.Catalogue() {
		for _, c := range spec.Choices {
			assert.True(t, offered[spec.ID][c.Value], "%s can offer %s but no test situation offers it", spec.ID, c.Value)
		}
	}
}

// TestNoHandlerFallsThrough proves the walk above can fail: a choice the catalogue lists for one
// question but that reaches another question's handler is reported as a bug, not ignored.
func TestNoHandlerFallsThrough(t *testing.T) {
	d := start(t)
	d.poll(newPR().conflict())
	q := d.m.pos.Question
	q.Choices = append(q.Choices, elicitation.Choice{Value: elicitation.Merge, Label: "smuggled"})
	_, err := d.m.Step(d.now, ChoiceInput(elicitation.Merge).From(ByUser))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "no handler"), err.Error())
	assert.Equal(t, NodeConflictAsk, d.m.pos.Node)
}

func TestDeclineMapsToAChoiceEveryQuestionOffers(t *testing.T) {
	for _, r := range reachers() {
		t.Run(string(r.id)+"/"+r.name, func(t *testing.T) {
			d := r.reach(t)
			act := d.send(DeclineInput())
			assert.NotEqual(t, ActionStop, act.Kind, "a decline never stops monitoring")
		})
	}
}

func TestPositionRoundTripsExactlyAtEveryQuestion(t *testing.T) {
	for _, r := range reachers() {
		t.Run(string(r.id)+"/"+r.name, func(t *testing.T) {
			d := r.reach(t)
			saved := d.m.Position()
			m, err := Restore(d.m.cfg, saved)
			require.NoError(t, err)
			assert.Equal(t, mustJSON(t, saved), mustJSON(t, m.Position()))
			assert.Equal(t, d.m.Pending(), m.Pending(), "a restored machine presents the same question")
			assert.True(t, slices.Equal(d.m.Pending().Question.Values(), m.Pending().Question.Values()))
		})
	}
}

func TestRestoreRejectsCorruptPositions(t *testing.T) {
	good := start(t).m.Position()
	tests := []struct {
		name   string
		mutate func(*Position)
	}{
		{"future version", func(p *Position) { p.Version = 99 }},
		{"unknown node", func(p *Position) { p.Node = "limbo" }},
		{"question node without a question", func(p *Position) { p.Node = NodeReadyAsk; p.Ready = &ReadyState{} }},
		{"task node without a task", func(p *Position) { p.Node = NodeCIInvestigating; p.CI = &CIState{} }},
		{"comment flow without threads", func(p *Position) {
			p.Node = NodeCommentsHandlingMyself
			p.Comments = &CommentsState{}
			q, _ := elicitation.Ask(elicitation.QCommentsManual, "?", []elicitation.Value{elicitation.DoneHandling, elicitation.Stop})
			p.Question = &q
		}},
		{"a node holding another step's question", func(p *Position) {
			p.Node = NodeCommentsMulti
			p.Comments = &CommentsState{Threads: []ThreadContext{{ID: "T1"}}}
			q, _ := elicitation.Ask(elicitation.QCommentsManual, "?", []elicitation.Value{elicitation.DoneHandling, elicitation.Stop})
			p.Question = &q
		}},
		{"a node holding another step's task", func(p *Position) {
			p.Node = NodeCIApplyingFix
			p.CI = &CIState{}
			p.Task = &Task{Name: TaskInvestigateCIFailure, Expected: []Event{EventInvestigationComplete}}
		}},
		{"a follow-up node outside a follow-up", func(p *Position) {
			p.Node = NodeCommentsFollowingUp
			p.Comments = &CommentsState{Mode: ModeAddressAll, Threads: []ThreadContext{{ID: "T1"}}}
			p.Task = &Task{Name: TaskAddressComment, Expected: []Event{EventCommentAddressed}}
		}},
		{"a server node waiting on another action", func(p *Position) {
			p.Node = NodeReadyMerging
			p.Ready = &ReadyState{}
			p.Server = &ServerRequest{Kind: ServerRequestReview}
		}},
		{"resting at a decision taken within a step", func(p *Position) {
			p.Node = NodeCommentsNextThread
			p.Comments = &CommentsState{Threads: []ThreadContext{{ID: "T1"}}}
		}},
		{"task that expects nothing", func(p *Position) {
			p.Node = NodeRefineWorking
			p.Refine = &RefineState{}
			p.Task = &Task{Name: TaskRefine}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := good.clone()
			require.NoError(t, err)
			tt.mutate(&p)
			_, err = Restore(DefaultConfig(), p)
			require.ErrorIs(t, err, ErrCorruptPosition)
		})
	}
	_ = prstatus.AttentionNone
}

func TestACommentIndexIsRestoredOnlyWithinItsThreads(t *testing.T) {
	for _, tt := range []struct {
		index int
		ok    bool
	}{{-1, false}, {0, true}, {1, true}, {2, false}, {3, false}} {
		t.Run(fmt.Sprintf("index %d of two threads", tt.index), func(t *testing.T) {
			p, err := start(t).m.Position().clone()
			require.NoError(t, err)
			p.Node = NodeCommentsHandlingMyself
			p.Comments = &CommentsState{Threads: []ThreadContext{{ID: "T1"}, {ID: "T2"}}, Index: tt.index}
			q, _ := elicitation.Ask(elicitation.QCommentsManual, "?", []elicitation.Value{elicitation.DoneHandling, elicitation.Stop})
			p.Question = &q
			_, err = Restore(DefaultConfig(), p)
			if tt.ok {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, ErrCorruptPosition)
			}
		})
	}
}
