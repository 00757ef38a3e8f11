package monitorwf

import (
	"context"
	"errors"
	"fmt"
	"slices"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

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
// (SignalWithStart: one call, no race between two deliveries). A monitor it starts belongs to
// c.Owner: its Params, its memo and its PrmonitorOwner search attribute say so.
func (s Starter) Notify(ctx context.Context, ref prstatus.PRRef, c Change) error {
	return s.signalWithStart(ctx, ref, c, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
}

// Start is a webhook delivery's Notify: it signals the monitor of ref, starting it for c.Owner
// when none runs, except over a last run that its owner stopped (a stop lasts until the owner
// starts the monitor again, through the front end's Notify), one that saw the merge, or one that
// took this very delivery already (a replay). ok is false when nothing was signalled.
func (s Starter) Start(ctx context.Context, ref prstatus.PRRef, c Change) (bool, error) {
	id := WorkflowID(ref)
	// REJECT_DUPLICATE unless the last run is known to allow a new one: a run that closes between
	// this look and the start is not replaced behind its owner's back.
	policy := enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE
	d, err := s.Client.DescribeWorkflow(ctx, id, "")
	var notFound *serviceerror.NotFound
	switch {
	case errors.As(err, &notFound):
	case err != nil:
		return false, fmt.Errorf("monitor %s: %w", id, err)
	case d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
	case d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		var r Result
		if err := s.Client.GetWorkflow(ctx, id, "").Get(ctx, &r); err != nil {
			return false, fmt.Errorf("monitor %s: how it ended: %w", id, err)
		}
		if !r.allowsStart(c) {
			return false, nil
		}
		policy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	default: // failed, terminated, timed out: a new run may start
		policy = enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE
	}
	err = s.signalWithStart(ctx, ref, c, policy)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return false, nil
	}
	return err == nil, err
}

// changeOwnerKey is an owner key as a Change carries it: an id key as is, a login lower-cased.
func changeOwnerKey(key string) string {
	if IsIDKey(key) {
		return key
	}
	return NormalizeOwner(key)
}

// stoppedByStarter: the run was stopped by its owner, and c (a delivery) would start the next run
// for that same owner, named by GitHub user id, or, on either side without one, by login.
func (r Result) stoppedByStarter(c Change) bool {
	login := NormalizeOwner(c.OwnerLogin)
	if login == "" && !IsIDKey(c.Owner) {
		login = NormalizeOwner(c.Owner)
	}
	switch {
	case r.StoppedBy == "":
		return false
	case r.StoppedBy == changeOwnerKey(c.Owner):
		return true
	case login == "":
		return false
	case !IsIDKey(r.StoppedBy): // stopped before owners had ids
		return r.StoppedBy == login
	default: // a delivery without the author's id
		return !IsIDKey(c.Owner) && NormalizeOwner(r.StoppedByLogin) == login
	}
}

// allowsStart: a delivery may start a new run after this one. A stop by the owner lasts whether
// the run recorded the owner's id or (before ids) their login.
func (r Result) allowsStart(c Change) bool {
	switch {
	case r.Final.Kind == statemachine.ActionMerged:
		return false
	case r.stoppedByStarter(c):
		return false
	case c.Digest != "" && slices.ContainsFunc(r.Deliveries, func(d Delivery) bool { return d.Digest == c.Digest }):
		return false
	}
	return true
}

func (s Starter) signalWithStart(ctx context.Context, ref prstatus.PRRef, c Change, policy enumspb.WorkflowIdReusePolicy) error {
	p := NewParams(ref, statemachine.DefaultConfig(), prstatus.DefaultReviewerPolicy())
	if s.Params != nil {
		p = s.Params(ref)
	}
	if p.Owner == "" {
		p.Owner, p.OwnerLogin = changeOwnerKey(c.Owner), c.OwnerLogin
	}
	attrs := []temporal.SearchAttributeUpdate{waitingOnKey.ValueSet(string(WaitingOnGitHub))}
	if p.Owner != "" {
		attrs = append(attrs, ownerKey.ValueSet(p.Owner))
	}
	opts := client.StartWorkflowOptions{
		ID:                    WorkflowID(p.Ref),
		TaskQueue:             s.TaskQueue,
		WorkflowIDReusePolicy: policy,
		TypedSearchAttributes: temporal.NewSearchAttributes(attrs...),
		Memo:                  map[string]any{memoOwner: p.Owner},
	}
	if _, err := s.Client.SignalWithStartWorkflow(ctx, opts.ID, SignalChanged, c, opts, WorkflowName, p); err != nil {
		return fmt.Errorf("signal monitor %s: %w", opts.ID, err)
	}
	return nil
}

// NextStep sends the agent's next_step to monitor id and waits for the answer. An Update that
// races the monitor's continue-as-new is sent again to the new run: the server moves one it had
// not yet handed to the workflow by itself; one the old run accepted and could not finish comes
// back failed, and is sent again when it was a ready (an answer the old run may have taken is
// not: the machine would see it twice).
func NextStep(ctx context.Context, c client.Client, id string, req NextStepRequest) (Reply, error) {
	for attempt := 1; ; attempt++ {
		r, err := nextStepOnce(ctx, c, id, req)
		if err == nil || attempt == maxUpdateAttempts || !racedContinueAsNew(ctx, c, id, req, err) {
			return r, err
		}
	}
}

// maxUpdateAttempts bounds NextStep's attempts across continue-as-new races.
const maxUpdateAttempts = 3

func nextStepOnce(ctx context.Context, c client.Client, id string, req NextStepRequest) (Reply, error) {
	h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: UpdateNextStep,
		Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err != nil {
		return Reply{}, err
	}
	var r Reply
	err = h.Get(ctx, &r)
	return r, err
}

// errTypeUpdateOutlived is the server's failure of an Update its run accepted and closed before
// the Update finished (by continuing as new, in the last workflow task).
const errTypeUpdateOutlived = "AcceptedUpdateCompletedWorkflow"

// racedContinueAsNew: err says the run the Update went to has closed, and monitor id runs on in a
// newer run that can take the Update.
func racedContinueAsNew(ctx context.Context, c client.Client, id string, req NextStepRequest, err error) bool {
	var notFound *serviceerror.NotFound
	switch {
	case hasType(err, errTypeUpdateOutlived):
		if req.Event != statemachine.EventReady {
			return false
		}
	case !errors.As(err, &notFound):
		return false
	}
	d, derr := c.DescribeWorkflow(ctx, id, "")
	return derr == nil && d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
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

// Pending reads the action monitor id waits on: its task or question whole, or polling.
func Pending(ctx context.Context, c client.Client, id string) (statemachine.Action, error) {
	v, err := c.QueryWorkflow(ctx, id, "", QueryPending)
	if err != nil {
		return statemachine.Action{}, err
	}
	var act statemachine.Action
	err = v.Get(&act)
	return act, err
}

// Final is how monitor id ended (stop or merged), once it has.
func Final(ctx context.Context, c client.Client, id string) (statemachine.Action, error) {
	var r Result
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &r); err != nil {
		return statemachine.Action{}, err
	}
	return r.Final, nil
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
