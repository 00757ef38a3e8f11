package monitorwf

import (
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/statemachine"
)

// MetricEventToAgent is the timer the workflow records, through the SDK's metrics handler (which
// records nothing while a history replays), from a change on the pull request to the action it
// led to as an Update hands it to the agent: the event → agent latency an operator watches
// (docs/deploy.md). A change that leads to nothing for the agent (the read finds the machine back
// to polling) is not measured; one the agent was not waiting for counts until it next asks.
const MetricEventToAgent = "prmonitor_event_to_agent"

// changeSeen starts the clock at the first change not yet answered.
func (w *monitor) changeSeen(now time.Time) {
	if w.sinceChange.IsZero() {
		w.sinceChange = now
	}
}

// changeQuiet stops the clock without a measure once a read after the change left the machine
// polling.
func (w *monitor) changeQuiet() {
	if w.act.Kind == statemachine.ActionPolling && w.owed.IsZero() {
		w.sinceChange = time.Time{}
	}
}

// changeAnswered records the latency when act, handed to the agent now, answers a change.
func (w *monitor) changeAnswered(ctx workflow.Context, act statemachine.Action) {
	if w.sinceChange.IsZero() || act.Kind == statemachine.ActionPolling {
		return
	}
	workflow.GetMetricsHandler(ctx).Timer(MetricEventToAgent).Record(workflow.Now(ctx).Sub(w.sinceChange))
	w.sinceChange = time.Time{}
}
