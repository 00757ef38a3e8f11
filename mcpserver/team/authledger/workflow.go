package authledger

import (
	"go.temporal.io/sdk/workflow"
)

// Names of the ledger's workflow, its Update and its Query.
const (
	WorkflowName = "prmonitor.AuthLedger"
	UpdateApply  = "apply"
	QueryRevoked = "revoked"
)

// maxUpdatesPerRun: past this many Updates (or when Temporal suggests it) the workflow continues
// as new with its state, so its history stays short.
const maxUpdatesPerRun = 1000

// Workflow is the ledger: it takes Ops as Updates, one at a time, answers QueryRevoked, and
// carries its state (pruned) across continue-as-new. It never ends by itself.
func Workflow(ctx workflow.Context, st State) error {
	if st.Entries == nil {
		st.Entries = map[string]*Entry{}
	}
	updates := 0
	if err := workflow.SetQueryHandler(ctx, QueryRevoked, func(key string) (bool, error) {
		return st.Revoked(workflow.Now(ctx), key), nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateApply, func(ctx workflow.Context, op Op) (Outcome, error) {
		updates++
		return st.Apply(workflow.Now(ctx), op)
	}, workflow.UpdateHandlerOptions{Validator: func(op Op) error { return op.Check() }}); err != nil {
		return err
	}
	err := workflow.Await(ctx, func() bool {
		return updates >= maxUpdatesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested()
	})
	if err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	st.Prune(workflow.Now(ctx))
	return workflow.NewContinueAsNewError(ctx, Workflow, st)
}

var workflowRegisterOptions = workflow.RegisterOptions{Name: WorkflowName}
