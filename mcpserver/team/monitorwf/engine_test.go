package monitorwf

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/mcpserver/team/temporaltest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// envRecord rewrites the recorded histories under testdata/histories from these runs.
const envRecord = "PRMONITOR_RECORD_HISTORIES"

// engine is a real Temporal server (tools/temporaldev) with a worker running the monitor on a
// fake GitHub.
type engine struct {
	t  *testing.T
	c  client.Client
	gh *fakeGitHub
	st Starter
}

func newEngine(t *testing.T, pr prstatus.Snapshot, tune func(*Params)) *engine {
	srv := temporaltest.Start(t, "")
	c := srv.Client(t)
	queue := "monitor-" + t.Name()
	gh := &fakeGitHub{pr: pr}
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Monitor, workflow.RegisterOptions{Name: WorkflowName})
	(&Activities{Source: gh, Effects: gh}).Register(w)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	st := Starter{Client: c, TaskQueue: queue, Params: func(r prstatus.PRRef) Params {
		p := NewParams(r, statemachine.DefaultConfig(), prstatus.DefaultReviewerPolicy())
		if tune != nil {
			tune(&p)
		}
		return p
	}}
	return &engine{t: t, c: c, gh: gh, st: st}
}

func ctxMinute(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// history is the workflow's full history (every run of it when continued as new is its own).
func (e *engine) history(ctx context.Context, id, runID string) *historypb.History {
	it := e.c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(e.t, err)
		h.Events = append(h.Events, ev)
	}
	return h
}

// replays checks that h replays on today's workflow code, and records it when asked to.
func (e *engine) replays(h *historypb.History, name string) {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflowWithOptions(Monitor, workflow.RegisterOptions{Name: WorkflowName})
	require.NoError(e.t, r.ReplayWorkflowHistory(sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)), h), "the live history replays")
	if os.Getenv(envRecord) == "" {
		return
	}
	b, err := temporalproto.CustomJSONMarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(e.t, err)
	require.NoError(e.t, os.WriteFile(filepath.Join("testdata", "histories", name+".json"), append(b, '\n'), 0o644))
}

func TestOnTheRealServerARefineRoundRunsToAReviewRequestAndItsHistoryReplays(t *testing.T) {
	e := newEngine(t, changesRequested(), nil)
	ctx := ctxMinute(t)
	id := WorkflowID(ref)
	require.NoError(t, e.st.Notify(ctx, ref, Change{Kind: "pull_request_review.submitted", Delivery: "d1"}))

	r, err := NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventReady, Wait: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, statemachine.TaskRefine, r.Action.Task)

	_, err = NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventUserChose, Choice: "merge"})
	require.Error(t, err, "a choice with no question open is rejected")

	e.gh.set(pushed(changesRequested(), "fix1", time.Now().Add(-time.Second)))
	r, err = NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventPushCompleted, Wait: 20 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, statemachine.ActionPolling, r.Action.Kind)
	assert.Equal(t, []statemachine.ServerActionKind{statemachine.ServerFetchHead, statemachine.ServerRequestReview}, e.gh.performed)

	st, err := QueryMonitor(ctx, e.c, id)
	require.NoError(t, err)
	assert.Equal(t, "Acme/Widgets#7", st.PR)
	assert.Equal(t, WaitingOnGitHub, st.WaitingOn)

	require.NoError(t, Stop(ctx, e.c, id))
	var res Result
	run := e.c.GetWorkflow(ctx, id, "")
	require.NoError(t, run.Get(ctx, &res))
	assert.Equal(t, statemachine.ActionStop, res.Final.Kind)

	h := e.history(ctx, id, run.GetRunID())
	accepted := 0
	for _, ev := range h.Events {
		if ev.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED {
			accepted++
		}
	}
	assert.Equal(t, 2, accepted, "the two valid Updates are in the history; the rejected one is not")
	e.replays(h, "refine-round")
}

func TestOnTheRealServerAMonitorContinuesAsNewAndKeepsItsPlace(t *testing.T) {
	e := newEngine(t, changesRequested(), func(p *Params) { p.MaxHistoryEvents = 40; p.Debounce = 50 * time.Millisecond })
	ctx := ctxMinute(t)
	id := WorkflowID(ref)
	require.NoError(t, e.st.Notify(ctx, ref, Change{Kind: "pull_request.opened"}))
	r, err := NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventReady, Wait: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, statemachine.TaskRefine, r.Action.Task)
	first := e.c.GetWorkflow(ctx, id, "").GetRunID()

	var st Status
	for i := 0; i < 40; i++ { // each change adds history; past 40 events the run continues as new
		require.NoError(t, e.st.Notify(ctx, ref, Change{Kind: "issue_comment.created"}))
		if st, err = QueryMonitor(ctx, e.c, id); err == nil && st.Runs > 0 {
			break
		}
	}
	require.Positive(t, st.Runs, "the monitor continued as new")
	assert.Equal(t, statemachine.TaskName("refine"), st.Task, "with the refine task still out")

	r, err = NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventReady, Wait: 20 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, statemachine.TaskRefine, r.Action.Task, "the agent gets the same task back from the new run")
	e.replays(e.history(ctx, id, first), "continue-as-new")
	require.NoError(t, Stop(ctx, e.c, id))
}

func TestOnTheRealServerUpdatesThatRaceAContinueAsNewAreAnsweredByTheNextRun(t *testing.T) {
	e := newEngine(t, changesRequested(), func(p *Params) { p.MaxHistoryEvents = 30; p.Debounce = 10 * time.Millisecond })
	ctx := ctxMinute(t)
	id := WorkflowID(ref)
	require.NoError(t, e.st.Notify(ctx, ref, Change{Kind: "pull_request.opened", Owner: "dev"}))
	r, err := NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventReady, Wait: 20 * time.Second})
	require.NoError(t, err)
	require.Equal(t, statemachine.TaskRefine, r.Action.Task)

	// Changes push the history past its bound again and again while agents keep asking: every
	// ready gets an answer (the task, or the question a ready mid-task leads to), from whichever
	// run holds the monitor by then, never the error of a run that closed under it.
	stop := make(chan struct{})
	var signals sync.WaitGroup
	signals.Add(1)
	go func() {
		defer signals.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = e.st.Notify(ctx, ref, Change{Kind: "issue_comment.created"})
			}
		}
	}()
	var calls sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	asked := 0
	for range 2 {
		calls.Add(1)
		go func() {
			defer calls.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
				r, err := NextStep(ctx, e.c, id, NextStepRequest{Event: statemachine.EventReady, Wait: 100 * time.Millisecond})
				if err == nil && r.MonitorID != id {
					err = fmt.Errorf("an answer for %q", r.MonitorID)
				}
				mu.Lock()
				asked++
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		}()
	}
	var st Status
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) && st.Runs < 3 {
		time.Sleep(200 * time.Millisecond)
		st, _ = QueryMonitor(ctx, e.c, id)
	}
	close(stop)
	calls.Wait()
	signals.Wait()
	assert.Empty(t, errs, "every ready was answered")
	assert.GreaterOrEqual(t, st.Runs, 3, "the monitor continued as new meanwhile")
	t.Logf("%d ready Updates answered across %d runs", asked, st.Runs+1)
	require.NoError(t, Stop(ctx, e.c, id))
}
