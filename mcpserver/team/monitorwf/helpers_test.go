package monitorwf

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// t0 is when every story starts; the pull request's history lies just before it.
var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

var ref = prstatus.PRRef{Owner: "Acme", Repo: "Widgets", Number: 7}

func sha(name string) string { return name + strings.Repeat("0", 40-len(name)) }

// openPR is an open, mergeable pull request by dev, a member, with one green check.
func openPR() prstatus.Snapshot {
	at := t0.Add(-time.Hour)
	return prstatus.Snapshot{
		Ref: ref, ID: "PR_7", Title: "Add retries", URL: "https://github.com/acme/widgets/pull/7",
		Author: prstatus.Actor{Login: "dev"}, AuthorAssociation: prstatus.AssocMember, Viewer: "dev", State: prstatus.StateOpen, HeadRef: "retries", BaseRef: "main",
		Mergeable: prstatus.MergeableYes, HeadOID: sha("c1"),
		Commits: []prstatus.Commit{{OID: sha("c1"), AuthoredDate: at, CommittedDate: at, Headline: "change c1", ParentCount: 1}},
		Checks: []prstatus.Check{{Kind: prstatus.KindCheckRun, Name: "test", Status: "COMPLETED", Conclusion: "SUCCESS",
			DatabaseID: 1000, WorkflowRunID: 100, WorkflowName: "ci"}},
	}
}

// changesRequested: bob, a member, asked for changes on the head.
func changesRequested() prstatus.Snapshot {
	s := openPR()
	s.Reviews = append(s.Reviews, prstatus.Review{ID: "PRR_1", Author: prstatus.Actor{Login: "bob"}, State: prstatus.ReviewChangesRequested,
		Body: "needs work", SubmittedAt: t0.Add(-30 * time.Minute), CommitOID: s.HeadOID, AuthorAssociation: prstatus.AssocMember})
	return s
}

// pushed adds a commit by the author after the review.
func pushed(s prstatus.Snapshot, name string, at time.Time) prstatus.Snapshot {
	s.Commits = append(append([]prstatus.Commit(nil), s.Commits...), prstatus.Commit{OID: sha(name), AuthoredDate: at, CommittedDate: at, Headline: "fix " + name, ParentCount: 1})
	s.HeadOID = sha(name)
	return s
}

// fakeGitHub is the activities' GitHub: the pull request as the story sets it, the reads and the
// server actions counted.
type fakeGitHub struct {
	mu        sync.Mutex
	pr        prstatus.Snapshot
	err       error
	reads     int
	performed []statemachine.ServerActionKind
}

func (f *fakeGitHub) set(s prstatus.Snapshot) { f.mu.Lock(); f.pr = s; f.mu.Unlock() }

func (f *fakeGitHub) readCount() int { f.mu.Lock(); defer f.mu.Unlock(); return f.reads }

func (f *fakeGitHub) Snapshot(_ context.Context, _ prstatus.PRRef) (*prstatus.Snapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if f.err != nil {
		return nil, f.err
	}
	b, _ := json.Marshal(f.pr) // a copy, as over the wire
	var s prstatus.Snapshot
	_ = json.Unmarshal(b, &s)
	return &s, nil
}

func (f *fakeGitHub) Perform(_ context.Context, _ prstatus.PRRef, req statemachine.ServerRequest, _ prstatus.ReviewerPolicy) (statemachine.Input, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.performed = append(f.performed, req.Kind)
	if req.Kind == statemachine.ServerFetchHead {
		return statemachine.HeadInput(statemachine.HeadRefresh{OK: true, SHA: f.pr.HeadOID}), nil
	}
	return statemachine.OutcomeInput(statemachine.Outcome{Kind: req.Kind, OK: true}), nil
}

// story runs the monitor workflow in Temporal's test environment against a fake GitHub.
type story struct {
	t   *testing.T
	env *testsuite.TestWorkflowEnvironment
	gh  *fakeGitHub
}

func newStory(t *testing.T, pr prstatus.Snapshot, withEffects bool) *story {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(t0)
	env.RegisterWorkflowWithOptions(Monitor, workflow.RegisterOptions{Name: WorkflowName})
	gh := &fakeGitHub{pr: pr}
	acts := &Activities{Source: gh}
	if withEffects {
		acts.Effects = gh
	}
	acts.Register(env)
	return &story{t: t, env: env, gh: gh}
}

func params() Params {
	return NewParams(ref, statemachine.DefaultConfig(), prstatus.DefaultReviewerPolicy())
}

// at runs fn at offset d from the start.
func (s *story) at(d time.Duration, fn func()) { s.env.RegisterDelayedCallback(fn, d) }

// nextStep sends the Update and hands its outcome to check.
func (s *story) nextStep(req NextStepRequest, check func(Reply, error)) {
	s.env.UpdateWorkflow(UpdateNextStep, "", &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { check(Reply{}, err) },
		OnComplete: func(v any, err error) {
			r, _ := v.(Reply)
			check(r, err)
		},
	}, req)
}

func (s *story) status() Status {
	s.t.Helper()
	v, err := s.env.QueryWorkflow(QueryStatus)
	require.NoError(s.t, err)
	var st Status
	require.NoError(s.t, v.Get(&st))
	return st
}

func (s *story) signal(name string, arg any) { s.env.SignalWorkflow(name, arg) }

// run executes the workflow to its end and returns its result.
func (s *story) run(p Params) Result {
	s.t.Helper()
	s.env.ExecuteWorkflow(WorkflowName, p)
	require.True(s.t, s.env.IsWorkflowCompleted())
	require.NoError(s.t, s.env.GetWorkflowError())
	var r Result
	require.NoError(s.t, s.env.GetWorkflowResult(&r))
	return r
}
