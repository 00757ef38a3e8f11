package monitorwf

import (
	"go.temporal.io/sdk/workflow"

	"github.com/prmonitor/prmonitor/statemachine"
)

// changePublishWaitingOn is the workflow.GetVersion change that added the PrmonitorWaitingOn
// search attribute. A monitor whose history predates it (testdata/histories/*-before-owner.json)
// replays without the upserts it never made; every new step of a new run makes them. This is how
// a change to the workflow's commands reaches monitors already running (docs/deploy.md,
// "Upgrades with running workflows").
const changePublishWaitingOn = "publish-waiting-on"

// waitingOnOf is whom an action waits on, as the search attribute says it (GitHub work in
// progress is not told apart from watching: it changes too often to be worth a history event).
func waitingOnOf(act statemachine.Action) WaitingOn {
	switch act.Kind {
	case statemachine.ActionAskUser:
		return WaitingOnUser
	case statemachine.ActionExecute:
		return WaitingOnAgent
	case statemachine.ActionStop, statemachine.ActionMerged:
		return WaitingOnNobody
	}
	return WaitingOnGitHub
}

// publish keeps the PrmonitorWaitingOn search attribute current after a step, so a front end
// finds the monitors waiting on their user or agent with one visibility query. It adds a history
// event only when the value changes.
func (w *monitor) publish(ctx workflow.Context) {
	now := waitingOnOf(w.act)
	if now == w.published {
		return
	}
	w.published = now
	if workflow.GetVersion(ctx, changePublishWaitingOn, workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, waitingOnKey.ValueSet(string(now))); err != nil {
		workflow.GetLogger(ctx).Warn("could not publish whom the monitor waits on", "monitor", w.id, "err", err)
	}
}

// publishedBefore is the value this run inherited (a continued run keeps its search attributes).
func publishedBefore(ctx workflow.Context) WaitingOn {
	v, _ := workflow.GetTypedSearchAttributes(ctx).GetKeyword(waitingOnKey)
	return WaitingOn(v)
}
