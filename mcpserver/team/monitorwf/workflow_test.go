package monitorwf

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/elicitation"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

func TestARequestForChangesReachesTheAgentAsARefineTaskThroughNextStep(t *testing.T) {
	s := newStory(t, changesRequested(), true)
	var got Reply
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(r Reply, err error) {
			require.NoError(t, err)
			got = r
		})
	})
	s.at(time.Minute, func() { s.signal(SignalStop, nil) })
	res := s.run(params())

	assert.Equal(t, "acme/widgets#7", got.MonitorID, "the monitor id is owner/repo#N, lower-case")
	assert.Equal(t, statemachine.ActionExecute, got.Action.Kind)
	assert.Equal(t, statemachine.TaskRefine, got.Action.Task)
	assert.Equal(t, 1, s.gh.readCount(), "one read found it; nothing else was read")
	assert.Equal(t, statemachine.ActionStop, res.Final.Kind, "the stop signal ends the workflow")
	assert.Equal(t, statemachine.StateStopped, res.Position.Node.State())
}

func TestChangesSignalledWithinTheDebounceWindowMakeOneRead(t *testing.T) {
	s := newStory(t, openPR(), true)
	for _, d := range []time.Duration{10 * time.Second, 11 * time.Second, 12 * time.Second} {
		s.at(d, func() { s.signal(SignalChanged, Change{Kind: "check_run.completed", Delivery: "d-" + d.String()}) })
	}
	var during, after int
	s.at(12500*time.Millisecond, func() { during = s.gh.readCount() })
	s.at(30*time.Second, func() { after = s.gh.readCount() })
	s.at(time.Minute, func() {
		st := s.status()
		assert.Equal(t, 3, st.ChangesSeen)
		assert.Equal(t, WaitingOnGitHub, st.WaitingOn)
		s.signal(SignalStop, nil)
	})
	s.run(params())
	assert.Equal(t, 1, during, "the start's read only, while the burst is still settling")
	assert.Equal(t, 2, after, "three changes within the window: one read")
}

func TestTheReconcileTimerReadsThePullRequestWithoutAnySignal(t *testing.T) {
	s := newStory(t, openPR(), true)
	p := params()
	p.Reconcile = time.Hour
	var before, after int
	var next time.Time
	s.at(59*time.Minute, func() { before = s.gh.readCount(); next = s.status().NextReconcile })
	s.at(67*time.Minute, func() { after = s.gh.readCount() })
	s.at(68*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(p)
	assert.Equal(t, 1, before)
	assert.Equal(t, 2, after, "the durable timer read it once, a lost webhook would be caught")
	assert.False(t, next.Before(t0.Add(time.Hour)), "at least the period after the read")
	assert.True(t, next.Before(t0.Add(66*time.Minute)), "jittered by under a tenth of the period")
}

func TestNextStepRejectsWhatTheMachineRefusesBeforeItIsAccepted(t *testing.T) {
	s := newStory(t, openPR(), true)
	var errs []error
	reject := func(_ Reply, err error) { errs = append(errs, err) }
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: "bogus"}, reject)
		s.nextStep(NextStepRequest{Event: statemachine.EventUserChose, Choice: elicitation.Merge}, reject)
	})
	var st Status
	s.at(2*time.Second, func() { st = s.status() })
	s.at(time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())
	require.Len(t, errs, 2)
	assert.ErrorContains(t, errs[0], "bogus", "an unknown event")
	assert.ErrorContains(t, errs[1], "not asking", "a choice with no question open")
	assert.Equal(t, statemachine.StatePolling, st.State, "nothing moved")
}

func TestAReadyWithNothingForTheAgentReturnsPollingWhenItsWaitEnds(t *testing.T) {
	s := newStory(t, openPR(), true)
	var got Reply
	var answeredAt time.Time
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: statemachine.EventReady, Wait: 30 * time.Second}, func(r Reply, err error) {
			require.NoError(t, err)
			got, answeredAt = r, s.env.Now()
		})
	})
	s.at(5*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())
	assert.Equal(t, statemachine.ActionPolling, got.Action.Kind)
	assert.Contains(t, got.Action.Message, "event=ready")
	assert.WithinDuration(t, t0.Add(31*time.Second), answeredAt, time.Second, "bounded by the wait it asked for")
}

func TestAWaitingReadyIsAnsweredAsSoonAsAChangeNeedsTheAgent(t *testing.T) {
	s := newStory(t, openPR(), true)
	var got Reply
	var answeredAt time.Time
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(r Reply, err error) {
			require.NoError(t, err)
			got, answeredAt = r, s.env.Now()
		})
	})
	var waiting, after Status
	s.at(20*time.Second, func() {
		waiting = s.status()
		s.gh.set(changesRequested())
		s.signal(SignalChanged, Change{Kind: "pull_request_review.submitted"})
	})
	s.at(4*time.Minute, func() { after = s.status() })
	s.at(5*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())
	assert.Equal(t, 1, waiting.CallsWaiting, "status says a call waits")
	assert.Zero(t, after.CallsWaiting, "and no longer once it is answered")
	assert.Equal(t, statemachine.TaskRefine, got.Action.Task)
	assert.WithinDuration(t, t0.Add(20*time.Second+DefaultDebounce), answeredAt, time.Second, "the debounced read, then at once")
}

func TestServerWorkRunsAsAnActivityAndItsOutcomeReachesTheMachine(t *testing.T) {
	s := newStory(t, changesRequested(), true)
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(r Reply, err error) {
			require.NoError(t, err)
			require.Equal(t, statemachine.TaskRefine, r.Action.Task)
		})
	})
	var after Reply
	s.at(time.Minute, func() {
		s.gh.set(pushed(changesRequested(), "fix1", t0.Add(50*time.Second)))
		s.nextStep(NextStepRequest{Event: statemachine.EventPushCompleted, Wait: 30 * time.Second}, func(r Reply, err error) {
			require.NoError(t, err)
			after = r
		})
	})
	s.at(5*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())
	assert.Equal(t, []statemachine.ServerActionKind{statemachine.ServerFetchHead, statemachine.ServerRequestReview}, s.gh.performed,
		"the machine checks the pushed head, then asks bob to review again, once")
	assert.Equal(t, statemachine.ActionPolling, after.Action.Kind, "then it watches for his verdict")
}

func TestWithoutAnEffectsExecutorTheServerActionWaitsAndAStopStillEndsTheMonitor(t *testing.T) {
	s := newStory(t, changesRequested(), false)
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(Reply, error) {})
	})
	s.at(time.Minute, func() {
		s.gh.set(pushed(changesRequested(), "fix1", t0.Add(50*time.Second)))
		s.nextStep(NextStepRequest{Event: statemachine.EventPushCompleted, Wait: 10 * time.Second}, func(Reply, error) {})
	})
	var st Status
	s.at(30*time.Minute, func() { st = s.status(); s.signal(SignalStop, nil) })
	res := s.run(params())
	assert.Equal(t, WaitingOnGitHub, st.WaitingOn, "the request for review is still pending after half an hour of retries")
	assert.Equal(t, statemachine.ActionStop, res.Final.Kind)
}

func TestAMergedPullRequestEndsTheWorkflow(t *testing.T) {
	merged := openPR()
	merged.State, merged.Merged = prstatus.StateMerged, true
	s := newStory(t, merged, true)
	res := s.run(params())
	assert.Equal(t, statemachine.ActionMerged, res.Final.Kind)
}

func TestAReadGitHubRefusesIsReportedAndRetriedLaterWithoutEndingTheMonitor(t *testing.T) {
	s := newStory(t, openPR(), true)
	s.gh.err = ghclient.ErrNotFound
	var st Status
	reads := map[time.Duration]int{}
	for _, d := range []time.Duration{30 * time.Second, 90 * time.Second, 150 * time.Second} {
		s.at(d, func() { reads[d] = s.gh.readCount() })
	}
	s.at(30*time.Second, func() { st = s.status() })
	s.at(10*time.Minute, func() { s.signal(SignalStop, nil) })
	s.run(params())
	assert.Contains(t, st.LastError, "not found", "status says why")
	assert.Equal(t, 1, reads[30*time.Second], "a refusal is not retried at once")
	assert.Equal(t, 2, reads[90*time.Second], "the monitor reads again after a minute")
	assert.Equal(t, 2, reads[150*time.Second], "then after two")
}

func TestTheWorkflowContinuesAsNewCarryingThePositionAndItsTimers(t *testing.T) {
	s := newStory(t, changesRequested(), true)
	p := params()
	s.at(time.Second, func() {
		s.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(Reply, error) {})
	})
	s.at(10*time.Second, func() { s.signal(SignalChanged, Change{Kind: "issue_comment.created"}) })
	s.at(20*time.Second, func() {
		s.env.SetCurrentHistoryLength(p.MaxHistoryEvents) // the history reached the bound
		s.signal(SignalChanged, Change{Kind: "issue_comment.created"})
	})
	s.env.ExecuteWorkflow(WorkflowName, p)
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(s.env.GetWorkflowError(), &can), "the run ended by continuing as new: %v", s.env.GetWorkflowError())
	var next Params
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Carry)
	assert.Equal(t, 1, next.Carry.Runs)
	assert.Equal(t, statemachine.StateExecutingTask, next.Carry.Position.Node.State(), "the refine task is still out")
	assert.False(t, next.Carry.ReconcileAt.IsZero(), "the reconcile timer goes along")
	assert.Equal(t, t0.Add(10*time.Second), next.Carry.Owed, "and the first change no read has seen yet (none is read while a task is out)")

	// The next run picks up exactly there: the agent's ready gets the same task back, unread.
	s2 := newStory(t, changesRequested(), true)
	var got Reply
	s2.at(time.Second, func() {
		s2.nextStep(NextStepRequest{Event: statemachine.EventReady}, func(r Reply, err error) {
			require.NoError(t, err)
			got = r
		})
	})
	s2.at(time.Minute, func() { s2.signal(SignalStop, nil) })
	s2.run(next)
	assert.Equal(t, statemachine.TaskRefine, got.Action.Task)
	assert.Zero(t, s2.gh.readCount(), "the task is still out: nothing read yet, the owed change waits for the watch")
}

func TestTheWorkflowContinuesAsNewWhenTemporalSuggestsIt(t *testing.T) {
	s := newStory(t, openPR(), true)
	s.at(10*time.Second, func() {
		s.env.SetContinueAsNewSuggested(true)
		s.signal(SignalChanged, Change{Kind: "status"})
	})
	s.env.ExecuteWorkflow(WorkflowName, params())
	var can *workflow.ContinueAsNewError
	require.True(t, errors.As(s.env.GetWorkflowError(), &can), "continued as new: %v", s.env.GetWorkflowError())
}
