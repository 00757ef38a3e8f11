package main

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// stateDir is a state directory written through the real store, as a server writes it: a record
// saved and an event logged after every step of a real machine.
type stateDir struct {
	t   *testing.T
	dir string
	st  *store.Store

	mu     sync.Mutex
	now    time.Time
	claims map[string]*store.Claim
}

// release gives ref's monitor up, as a server does when it exits: no process holds it any more.
func (d *stateDir) release(ref prstatus.PRRef) {
	d.t.Helper()
	require.NoError(d.t, d.claims[ref.String()].Release())
}

// The places a test monitor can be driven to.
const (
	atWatchingCI = "watching CI"
	atQuestion   = "question pending"
	atTask       = "task handed out"
	atSnoozed    = "question snoozed"
	atEnded      = "ended"
)

func newStateDir(t *testing.T) *stateDir {
	t.Helper()
	d := &stateDir{t: t, dir: t.TempDir(), now: testNow.Add(-2 * time.Hour), claims: map[string]*store.Claim{}}
	st, err := store.Open(d.dir, nil, store.WithNow(d.clock))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, st.Close()) })
	d.st = st
	return d
}

func (d *stateDir) clock() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.now
}

func (d *stateDir) tick(by time.Duration) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.now = d.now.Add(by)
	return d.now
}

// add drives a monitor of ref to where, saving and logging every step as the server does; edits
// change the pull request it sees (a branch name, say).
func (d *stateDir) add(ref prstatus.PRRef, where string, edits ...func(*prstatus.Snapshot)) {
	t := d.t
	t.Helper()
	id := ref.String()
	c, err := d.st.Claim(id)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Release() })
	d.claims[id] = c
	m := statemachine.New(statemachine.DefaultConfig(), statemachine.Monitor{
		ID: id, Ref: ref, Title: "Add retries\x1b[31m", URL: "https://github.com/" + ref.Owner + "/" + ref.Repo + "/pull/" + strconv.Itoa(ref.Number),
	})
	created := d.clock()
	require.NoError(t, d.st.Append(id, store.Event{Kind: store.EventLifecycle, Summary: "started"}))
	step := func(in statemachine.Input) statemachine.Action {
		t.Helper()
		now := d.tick(time.Minute)
		open := m.Position().Question
		act, err := m.Step(now, in)
		require.NoError(t, err)
		ended := act.Kind == statemachine.ActionStop || act.Kind == statemachine.ActionMerged
		require.NoError(t, d.st.Save(id, store.Record{Ref: ref, API: "https://api.github.com/", CreatedAt: created, Position: m.Position(), Stopped: ended, StoppedReason: map[bool]string{true: "stopped"}[ended]}))
		// The event the server logs for a step.
		e := monitor.StepEvent(open, in, act, m.Fired())
		e.At = now
		require.NoError(t, d.st.Append(id, e))
		return act
	}
	step(statemachine.EventInput(statemachine.EventReady, "", statemachine.EventData{}))

	head := strings.Repeat("c1", 20)
	snap := prstatus.Snapshot{
		Ref: ref, ID: "PR_" + strconv.Itoa(ref.Number), Title: "Add retries", Author: prstatus.Actor{Login: "dev"}, Viewer: "dev",
		State: prstatus.StateOpen, HeadRef: "retries", BaseRef: "main", HeadOID: head, Mergeable: prstatus.MergeableYes,
		Commits: []prstatus.Commit{{OID: head, AuthoredDate: testNow.Add(-3 * time.Hour), CommittedDate: testNow.Add(-3 * time.Hour), Headline: "retry", ParentCount: 1}},
		Checks:  []prstatus.Check{{Kind: prstatus.KindCheckRun, Name: "test", Status: "IN_PROGRESS"}},
	}
	for _, edit := range edits {
		edit(&snap)
	}
	poll := func() statemachine.Action {
		f := prstatus.Derive(&snap, d.clock())
		return step(statemachine.PollInput(f))
	}
	act := poll()
	require.Equal(t, statemachine.ActionPolling, act.Kind)
	if where == atWatchingCI {
		d.tick(time.Minute)
		require.Equal(t, statemachine.ActionPolling, poll().Kind)
		return
	}
	snap.Mergeable = prstatus.MergeableConflict
	snap.Checks[0].Status, snap.Checks[0].Conclusion = "COMPLETED", "SUCCESS"
	require.Equal(t, statemachine.ActionAskUser, poll().Kind)
	if where == atQuestion {
		return
	}
	if where == atSnoozed {
		require.Equal(t, statemachine.ActionPolling, step(statemachine.ChoiceInput(elicitation.Snooze)).Kind)
		return
	}
	if where == atEnded {
		require.Equal(t, statemachine.ActionStop, step(statemachine.ChoiceInput(elicitation.Stop)).Kind)
		d.release(ref) // an ended monitor is held by nobody
		return
	}
	require.Equal(t, statemachine.ActionExecute, step(statemachine.ChoiceInput(elicitation.Rebase)).Kind)
}

// setQuestionText rewrites the text of ref's saved pending question, as a long question would read.
func (d *stateDir) setQuestionText(ref prstatus.PRRef, text string) {
	d.t.Helper()
	rec, ok, err := d.st.Load(ref.String())
	require.NoError(d.t, err)
	require.True(d.t, ok)
	require.NotNil(d.t, rec.Position.Question)
	rec.Position.Question.Text = text
	require.NoError(d.t, d.st.Save(ref.String(), rec))
}
