package monitorwf

import (
	"context"
	"errors"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Starter reaches monitors' workflows from outside: the webhook receiver and the HTTP front end.
type Starter struct {
	Client    client.Client
	TaskQueue string
	// Params builds a new monitor's parameters (the deployment's machine configuration and
	// reviewer policy); a running monitor keeps its own.
	Params func(ref prstatus.PRRef) Params
}

// Notify tells the monitor of ref that something changed, starting it if it is not running
// (SignalWithStart: one call, no race between two deliveries).
func (s Starter) Notify(ctx context.Context, ref prstatus.PRRef, c Change) error {
	p := NewParams(ref, statemachine.DefaultConfig(), prstatus.DefaultReviewerPolicy())
	if s.Params != nil {
		p = s.Params(ref)
	}
	opts := client.StartWorkflowOptions{
		ID:                    WorkflowID(p.Ref),
		TaskQueue:             s.TaskQueue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}
	if _, err := s.Client.SignalWithStartWorkflow(ctx, opts.ID, SignalChanged, c, opts, WorkflowName, p); err != nil {
		return fmt.Errorf("signal monitor %s: %w", opts.ID, err)
	}
	return nil
}

// NextStep sends the agent's next_step to monitor id and waits for the answer.
func NextStep(ctx context.Context, c client.Client, id string, req NextStepRequest) (Reply, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: UpdateNextStep,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return Reply{}, err
	}
	var r Reply
	err = h.Get(ctx, &r)
	return r, err
}

// QueryMonitor reads monitor id's status.
func QueryMonitor(ctx context.Context, c client.Client, id string) (Status, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryStatus)
	if err != nil {
		return Status{}, err
	}
	var st Status
	err = v.Get(&st)
	return st, err
}

// Stop stops monitor id.
func Stop(ctx context.Context, c client.Client, id string) error {
	return c.SignalWorkflow(ctx, id, "", SignalStop, nil)
}

// Poke signals the monitor of ref if one is running; ok is false when none is (nothing is
// started: see the webhook package for who may start one).
func (s Starter) Poke(ctx context.Context, ref prstatus.PRRef, c Change) (bool, error) {
	err := s.Client.SignalWorkflow(ctx, WorkflowID(ref), "", SignalChanged, c)
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("signal monitor %s: %w", WorkflowID(ref), err)
	}
	return true, nil
}
