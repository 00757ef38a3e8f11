package statemachine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// inputsAt is every kind of input worth trying at a position: each choice, a decline and free
// text at a question; each completion (with and without a reply), a ready that may mean the task
// never arrived, a plain ready and a wrong event during a task; every way a server action can end;
// and every situation at a watching node.
func inputsAt(pos Position) []Input {
	var ins []Input
	switch pos.Node.State() {
	case StateAwaitingUser:
		for _, c := range pos.Question.Choices {
			ins = append(ins, ChoiceInput(c.Value).From(ByUser))
		}
		ins = append(ins, DeclineInput(), FreeformInput(FreeformAnswer{Text: "do something else", Classification: elicitation.ClassifiedUnavailable}))
	case StateExecutingTask:
		switch {
		case pos.Server != nil && pos.Server.Kind == ServerFetchHead:
			for _, h := range []HeadRefresh{{OK: true, SHA: pos.Head}, {OK: true, SHA: sha("pushed")}, {Error: "offline"}} {
				ins = append(ins, HeadInput(h))
			}
		case pos.Server != nil:
			k := pos.Server.Kind
			ins = append(ins, OutcomeInput(Outcome{Kind: k, OK: true}), OutcomeInput(Outcome{Kind: k, Error: "boom"}))
			if k == ServerFetchCILogs && pos.CI != nil {
				ins = append(ins, OutcomeInput(Outcome{Kind: k, OK: true, Logs: flakyLogs(pos.CI.Failed, false)}))
			}
			if k == ServerUpdateBranch {
				ins = append(ins, OutcomeInput(Outcome{Kind: k, HeadMoved: true, Error: "moved"}))
			}
			if merges(k) {
				ins = append(ins, OutcomeInput(Outcome{Kind: k, Refused: true, Error: "policy"}), OutcomeInput(Outcome{Kind: k, HeadMoved: true}))
				for _, st := range []prstatus.PRState{prstatus.StateOpen, prstatus.StateMerged} {
					ins = append(ins, OutcomeInput(Outcome{Kind: k, Changed: []string{"a new commit"}, Shown: &prstatus.MergeView{Head: sha("c9"), State: st}}))
				}
			}
		case pos.Task != nil:
			for _, e := range pos.Task.Expected {
				if e == EventUserChose {
					ins = append(ins, EventInput(e, pos.Freeform.Question.Choices[0].Value, EventData{}))
					continue
				}
				ins = append(ins, EventInput(e, "", EventData{}), EventInput(e, "", EventData{ReplyText: "done", Recommendation: "r"}))
			}
			unseen := EventInput(EventReady, "", EventData{})
			unseen.TaskUnseen = true
			ins = append(ins, unseen, EventInput(EventReady, "", EventData{}), EventInput(EventInvestigationComplete, "", EventData{ReplyText: "done"}))
		}
	default:
		for _, p := range situations {
			ins = append(ins, PollInput(p().facts()))
		}
		if pos.Node == NodeIdle {
			ins = append(ins, EventInput(EventReady, "", EventData{}))
		}
	}
	return append(ins, StopInput())
}

// TestEveryRowFires: the table has no row the machine never takes. From every saved position of
// the v1 corpus (one per step of every flow, migrated), every input worth trying is explored a few
// steps deep; two rows that need a clock between two polls are driven as stories. Every step is
// also held to the table (checkMoves).
func TestEveryRowFires(t *testing.T) {
	fired := map[Transition]bool{}
	type visit struct {
		pos   Position
		now   time.Time
		depth int
	}
	var queue []visit
	files, err := filepath.Glob("testdata/positions-v1/*.json")
	require.NoError(t, err)
	for _, f := range files {
		c := readV1Case(t, f)
		queue = append(queue, visit{c.Position, c.Now, 0})
	}
	seen, expanded := map[string]bool{}, map[string]int{}
	steps := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		m := mustRestore(t, v.pos)
		for _, in := range inputsAt(v.pos) {
			before := m.Position()
			_, err := m.Step(v.now.Add(time.Minute), in)
			steps++
			if err != nil {
				continue
			}
			after := m.Position()
			require.NoError(t, checkMoves(before.Node, after.Node, in, m.Moves()))
			novel := false
			for _, mv := range m.Moves() {
				novel = novel || !fired[mv.Row]
				fired[mv.Row] = true
			}
			m.pos = before // back to where the visit started, for the next input
			// Explored further: what a new row led to, and a few positions at every node.
			sig := signature(after)
			if after.Node == NodeStopped || v.depth >= 6 || (!novel && expanded[sig] >= 2) {
				continue
			}
			if key := mustJSON(t, after); !seen[key] {
				seen[key] = true
				expanded[sig]++
				queue = append(queue, visit{after, v.now.Add(time.Minute), v.depth + 1})
			}
		}
	}
	t.Logf("%d steps from %d positions", steps, len(seen))

	// A refine round handed out minutes ago, its task dropped, raised again on a new head.
	p := crPR()
	d := start(t)
	d.poll(p)
	d.ev(EventReady, EventData{})
	d.head(sha("c1"))
	d.choose(elicitation.Resume)
	d.poll(p.mergeBase("m1"))
	for _, mv := range d.m.Moves() {
		fired[mv.Row] = true
	}
	// A ready question superseded by a request for changes.
	ready := approvedPR()
	d = start(t)
	d.poll(ready)
	d.poll(ready.review("bob", prstatus.ReviewChangesRequested, "wait"))
	for _, mv := range d.m.Moves() {
		fired[mv.Row] = true
	}

	var never []Transition
	for _, r := range Table() {
		if !fired[r.Name] {
			never = append(never, r.Name)
		}
	}
	assert.Empty(t, never, "rows the machine never takes")
}

// signature is what tells positions at one node apart for the rows that leave it: the comment
// mode, and what a recovery, a free-text answer or a failed action would return to.
func signature(p Position) string {
	sig := string(p.Node)
	if c := p.Comments; c != nil {
		t := c.Threads[c.Index]
		sig += fmt.Sprintf(" %s picked=%v replied=%v bot=%v", c.Mode, c.Picked, t.ReviewerReplied, t.ReviewerIsBot)
	}
	if p.Recovery != nil {
		sig += fmt.Sprintf(" recovering %s reply=%v", p.Recovery.Task.Name, p.Recovery.Data.ReplyText != "")
	}
	for _, r := range p.Memory.Rounds {
		if r.Completed && len(r.ThreadIDs) > 0 {
			sig += " refined"
			break
		}
	}
	if p.Freeform != nil {
		sig += " interpreting " + string(p.Freeform.Question.ID)
	}
	if p.Retry != nil {
		sig += " retry " + string(p.Retry.Kind)
	}
	if p.Ready != nil && p.Ready.Queue {
		sig += " queue"
	}
	if p.Memory.AutoMerge != nil {
		sig += " auto-merge on"
	}
	return sig
}

type v1Case struct {
	Name          string          `json:"name"`
	Position      Position        `json:"position"`
	Pending       json.RawMessage `json:"pending"`
	Now           time.Time       `json:"now"`
	Input         Input           `json:"input"`
	After         json.RawMessage `json:"after"`
	AfterPosition json.RawMessage `json:"after_position"`
}

func readV1Case(t *testing.T, path string) v1Case {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var c v1Case
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

func mustRestore(t *testing.T, pos Position) *Machine {
	t.Helper()
	m, err := Restore(DefaultConfig(), pos)
	require.NoError(t, err)
	return m
}
