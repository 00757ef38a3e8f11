package authledger

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// Temporal is the ledger kept by the workflow: every front-end replica that shares the Temporal
// namespace and task queue reaches the same one.
type Temporal struct {
	Client client.Client
	// TaskQueue is the ledger's own queue (TaskQueueFor): the front ends run its workflow
	// (Register), so sign-in does not wait on the monitors' workers.
	TaskQueue string
	// ID is the workflow's id (WorkflowIDFor).
	ID string
}

// TaskQueueFor is the ledger's task queue for a deployment's task queue.
func TaskQueueFor(queue string) string { return queue + "-auth" }

// WorkflowIDFor is the ledger's workflow id for a deployment's task queue: one ledger per
// deployment, even when deployments share a namespace.
func WorkflowIDFor(queue string) string { return "prmonitor-auth-ledger/" + queue }

// Register registers the ledger's workflow on w (a worker on TaskQueue).
func Register(w worker.Registry) {
	w.RegisterWorkflowWithOptions(Workflow, workflowRegisterOptions)
}

// callTimeout bounds one call to the ledger.
const callTimeout = 15 * time.Second

// Start starts the ledger's workflow unless it runs already (any replica may; the first wins).
func (t Temporal) Start(ctx context.Context) error {
	_, err := t.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: t.ID, TaskQueue: t.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE}, WorkflowName, State{})
	if err != nil {
		return fmt.Errorf("authledger: start the ledger: %w", err)
	}
	return nil
}

// Apply sends op to the ledger and waits for its outcome. A ledger that is not running is started
// and asked again (once).
func (t Temporal) Apply(ctx context.Context, op Op) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		out, err := t.apply(ctx, op)
		if err == nil || attempt == 2 || !notRunning(err) {
			return out, err
		}
		if err := t.Start(ctx); err != nil {
			return Outcome{}, err
		}
	}
}

func (t Temporal) apply(ctx context.Context, op Op) (Outcome, error) {
	h, err := t.Client.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: t.ID, UpdateName: UpdateApply,
		Args: []any{op}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return Outcome{}, fmt.Errorf("authledger: %w", err)
	}
	var out Outcome
	if err := h.Get(ctx, &out); err != nil {
		return Outcome{}, fmt.Errorf("authledger: %w", err)
	}
	return out, nil
}

// Revoked asks the ledger whether key is revoked. A ledger that is not running knows of no
// revocation only if it never held one: it is started, and asked again.
func (t Temporal) Revoked(ctx context.Context, key string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	for attempt := 1; ; attempt++ {
		v, err := t.Client.QueryWorkflow(ctx, t.ID, "", QueryRevoked, key)
		if err == nil {
			var revoked bool
			if err := v.Get(&revoked); err != nil {
				return false, fmt.Errorf("authledger: %w", err)
			}
			return revoked, nil
		}
		if attempt == 2 || !notRunning(err) {
			return false, fmt.Errorf("authledger: %w", err)
		}
		if err := t.Start(ctx); err != nil {
			return false, err
		}
	}
}

// notRunning: err says the ledger's workflow does not run.
func notRunning(err error) bool {
	var notFound *serviceerror.NotFound
	return errors.As(err, &notFound)
}
