package statemachine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
)

// t0 is when every story starts.
var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// pr builds a pull request's story; facts() derives what the machine polls, through the real
// prstatus.Derive, so these tests also hold the machine to Derive's contract.
type pr struct {
	s     prstatus.Snapshot
	clock time.Time
	n     int
}

func sha(name string) string { return name + strings.Repeat("0", 40-len(name)) }

// newPR is an open, mergeable PR by dev with one green Actions check.
func newPR() *pr {
	p := &pr{clock: t0, s: prstatus.Snapshot{
		Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}, ID: "PR_7", Title: "Add retries",
		URL: "https://github.com/acme/widgets/pull/7", Author: prstatus.Actor{Login: "dev"}, Viewer: "dev",
		State: prstatus.StateOpen, HeadRef: "retries", BaseRef: "main", Mergeable: prstatus.MergeableYes,
	}}
	p.push("c1")
	p.green()
	return p
}

func (p *pr) tick() time.Time { p.clock = p.clock.Add(10 * time.Minute); return p.clock }

func (p *pr) push(name string) *pr {
	at := p.tick()
	p.s.Commits = append(p.s.Commits, prstatus.Commit{OID: sha(name), AuthoredDate: at, CommittedDate: at, Headline: "change " + name, ParentCount: 1})
	p.s.HeadOID = sha(name)
	return p
}

// mergeBase pushes a "Merge branch 'main'" commit: not an answer to any review.
func (p *pr) mergeBase(name string) *pr {
	at := p.tick()
	p.s.Commits = append(p.s.Commits, prstatus.Commit{OID: sha(name), AuthoredDate: at, CommittedDate: at, Headline: "Merge branch 'main' into retries", ParentCount: 2})
	p.s.HeadOID = sha(name)
	return p
}

func actor(login string) prstatus.Actor {
	return prstatus.Actor{Login: login, IsBot: strings.HasSuffix(login, "[bot]")}
}

// assocOf is how a hand-built author relates to the repository, as GitHub would report it on a
// team's repository: people are members, bots (GitHub Apps) have no association.
func assocOf(login string) prstatus.Association {
	if actor(login).IsBot {
		return prstatus.AssocNone
	}
	return prstatus.AssocMember
}

func (p *pr) review(who string, st prstatus.ReviewState, body string) *pr {
	p.n++
	r := prstatus.Review{ID: fmt.Sprintf("PRR_%d", p.n), Author: actor(who), AuthorAssociation: assocOf(who), State: st, Body: body, SubmittedAt: p.tick(), CommitOID: p.s.HeadOID}
	p.s.Reviews = append(p.s.Reviews, r)
	return p
}

func (p *pr) thread(id, who, path string, line int, body string) *pr {
	p.n++
	c := prstatus.Comment{ID: fmt.Sprintf("C_%d", p.n), DatabaseID: int64(p.n), Author: actor(who), AuthorAssociation: assocOf(who), Body: body, CreatedAt: p.tick(),
		URL: "https://github.com/acme/widgets/pull/7#discussion_r" + fmt.Sprint(p.n)}
	p.s.Threads = append(p.s.Threads, prstatus.Thread{ID: id, Path: path, Line: line, Comments: []prstatus.Comment{c}, TotalComments: 1})
	return p
}

func (p *pr) reply(id, who, body string) *pr {
	for i := range p.s.Threads {
		if p.s.Threads[i].ID == id {
			p.n++
			t := &p.s.Threads[i]
			t.Comments = append(t.Comments, prstatus.Comment{ID: fmt.Sprintf("C_%d", p.n), DatabaseID: int64(p.n), Author: actor(who), AuthorAssociation: assocOf(who), Body: body, CreatedAt: p.tick()})
			t.TotalComments++
		}
	}
	return p
}

func (p *pr) resolve(id string) *pr {
	for i := range p.s.Threads {
		if p.s.Threads[i].ID == id {
			p.s.Threads[i].IsResolved = true
		}
	}
	return p
}

func check(name string, status, conclusion string, job, run int64) prstatus.Check {
	return prstatus.Check{Kind: prstatus.KindCheckRun, Name: name, Status: status, Conclusion: conclusion, DatabaseID: job, WorkflowRunID: run,
		WorkflowName: "ci", URL: fmt.Sprintf("https://github.com/acme/widgets/actions/runs/%d/job/%d", run, job)}
}

func (p *pr) checks(cs ...prstatus.Check) *pr { p.s.Checks = cs; return p }
func (p *pr) green() *pr                      { return p.checks(check("test", "COMPLETED", "SUCCESS", 1000, 100)) }
func (p *pr) failing() *pr {
	return p.checks(check("test", "COMPLETED", "FAILURE", 1001, 101), check("lint", "COMPLETED", "SUCCESS", 1002, 101))
}
func (p *pr) running() *pr  { return p.checks(check("test", "IN_PROGRESS", "", 1003, 102)) }
func (p *pr) conflict() *pr { p.s.Mergeable = prstatus.MergeableConflict; return p }

func (p *pr) facts() prstatus.Facts { return prstatus.Derive(&p.s, p.clock) }

// drv drives one machine through a story.
type drv struct {
	t   *testing.T
	m   *Machine
	now time.Time
}

func newDriver(t *testing.T, cfg Config) *drv {
	t.Helper()
	d := &drv{t: t, m: New(cfg, Monitor{ID: "acme/widgets#7", Ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}}), now: t0}
	act := d.ev(EventReady, EventData{})
	require.Equal(t, ActionPolling, act.Kind)
	return d
}

func start(t *testing.T) *drv { return newDriver(t, DefaultConfig()) }

func (d *drv) send(in Input) Action {
	d.t.Helper()
	d.now = d.now.Add(time.Minute)
	act, err := d.m.Step(d.now, in)
	require.NoError(d.t, err, "input %+v at %s", in, d.m.pos.Node)
	assertConsistent(d.t, d.m, act)
	return act
}

func (d *drv) poll(p *pr) Action { d.t.Helper(); return d.send(PollInput(p.facts())) }

// choose is the user's pick in the host's prompt.
func (d *drv) choose(v elicitation.Value) Action {
	d.t.Helper()
	return d.send(ChoiceInput(v).From(ByUser))
}
func (d *drv) ev(e Event, data EventData) Action {
	d.t.Helper()
	return d.send(EventInput(e, "", data))
}
func (d *drv) ok(kind ServerActionKind) Action {
	d.t.Helper()
	return d.send(OutcomeInput(Outcome{Kind: kind, OK: true}))
}
func (d *drv) fail(kind ServerActionKind, why string) Action {
	d.t.Helper()
	return d.send(OutcomeInput(Outcome{Kind: kind, Error: why}))
}
func (d *drv) head(sha string) Action {
	d.t.Helper()
	return d.send(HeadInput(HeadRefresh{OK: true, SHA: sha}))
}

// reject expects the input to fail with want and to leave the position exactly as it was.
func (d *drv) reject(in Input, want error) {
	d.t.Helper()
	before := mustJSON(d.t, d.m.Position())
	_, err := d.m.Step(d.now, in)
	require.ErrorIs(d.t, err, want)
	require.JSONEq(d.t, before, mustJSON(d.t, d.m.Position()), "a rejected input must leave the position untouched")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

func requireExecute(t *testing.T, act Action, task TaskName, expected ...Event) {
	t.Helper()
	require.Equal(t, ActionExecute, act.Kind, "want execute %s, got %+v", task, act)
	require.Equal(t, task, act.Task)
	if len(expected) > 0 {
		require.Equal(t, expected, act.ExpectedEvents)
	}
}

func requireAsk(t *testing.T, act Action, id elicitation.QuestionID, values ...elicitation.Value) {
	t.Helper()
	require.Equal(t, ActionAskUser, act.Kind, "want question %s, got %+v", id, act)
	require.Equal(t, id, act.Question.ID)
	if len(values) > 0 { // every question offers snooze (assertConsistent): the lists here leave it out
		require.Equal(t, values, slices.DeleteFunc(act.Question.Values(), func(v elicitation.Value) bool { return v == elicitation.Snooze }))
	}
}

func requireServer(t *testing.T, act Action, kind ServerActionKind) *ServerRequest {
	t.Helper()
	require.Equal(t, ActionServer, act.Kind, "want server %s, got %+v", kind, act)
	require.Equal(t, kind, act.Server.Kind)
	return act.Server
}

// assertConsistent checks what must hold after every successful step.
func assertConsistent(t *testing.T, m *Machine, act Action) {
	t.Helper()
	pos := m.Position()
	require.NoError(t, pos.check())
	require.Equal(t, pos.Node, act.Node)
	switch act.Kind {
	case ActionAskUser:
		require.Equal(t, StateAwaitingUser, pos.Node.State())
		require.True(t, act.Question.Offers(elicitation.Stop), "stop is always offered")
		require.True(t, act.Question.Offers(elicitation.Snooze), "every question can be snoozed")
		require.True(t, act.Question.Offers(elicitation.DeclineValue(act.Question.ID)), "a declined prompt must mean a choice on offer")
	case ActionExecute:
		require.Equal(t, StateExecutingTask, pos.Node.State())
		require.NotEmpty(t, act.ExpectedEvents)
		require.NotNil(t, pos.Task)
	case ActionServer:
		require.Equal(t, StateExecutingTask, pos.Node.State())
		require.NotNil(t, pos.Server)
	case ActionPolling:
		if !act.SnoozedUntil.IsZero() {
			require.Equal(t, StateAwaitingUser, pos.Node.State(), "only a question is snoozed")
			require.NotNil(t, pos.Snooze)
			require.Equal(t, pos.Question.Seq, pos.Snooze.Seq)
			break
		}
		require.Contains(t, []State{StatePolling, StateIdle}, pos.Node.State())
	case ActionStop, ActionMerged:
		require.Equal(t, StateStopped, pos.Node.State())
	default:
		t.Fatalf("unknown action kind %q", act.Kind)
	}
}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
