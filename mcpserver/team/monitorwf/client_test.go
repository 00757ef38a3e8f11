package monitorwf

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/prmonitor/prmonitor/statemachine"
)

// racingClient answers the first Updates with fail, then with a reply; the workflow runs on when
// running says so.
type racingClient struct {
	client.Client
	fail    []error
	running bool
	updates int
}

type handle struct {
	client.WorkflowUpdateHandle
	err error
}

func (h handle) Get(_ context.Context, v any) error {
	if h.err != nil {
		return h.err
	}
	*v.(*Reply) = Reply{MonitorID: "acme/widgets#7"}
	return nil
}

func (c *racingClient) UpdateWorkflow(context.Context, client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	c.updates++
	if len(c.fail) > 0 {
		err := c.fail[0]
		c.fail = c.fail[1:]
		return handle{err: err}, nil
	}
	return handle{}, nil
}

func (c *racingClient) DescribeWorkflow(context.Context, string, string) (*client.WorkflowExecutionDescription, error) {
	d := &client.WorkflowExecutionDescription{}
	d.Status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	if c.running {
		d.Status = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	}
	return d, nil
}

func TestAnUpdateTheClosingRunCouldNotFinishIsSentToTheNextRunWhenThatIsSafe(t *testing.T) {
	outlived := temporal.NewApplicationError("Workflow Update failed because the Workflow completed before the Update completed.", errTypeUpdateOutlived)
	aborted := serviceerror.NewNotFound("workflow update was aborted by closing workflow")
	ready := NextStepRequest{Event: statemachine.EventReady}
	answer := NextStepRequest{Event: statemachine.EventUserChose, Choice: "merge", QuestionSeq: 3}
	tests := []struct {
		name    string
		req     NextStepRequest
		fail    []error
		running bool
		updates int
		ok      bool
	}{
		{"a ready the old run accepted goes to the new run", ready, []error{outlived}, true, 2, true},
		{"an Update the old run never took goes to the new run", answer, []error{aborted}, true, 2, true},
		{"an answer the old run may have taken is not sent twice", answer, []error{outlived}, true, 1, false},
		{"a monitor that ended is not asked again", ready, []error{aborted}, false, 1, false},
		{"another error is the caller's", ready, []error{errors.New("boom")}, true, 1, false},
		{"a run that keeps closing is tried a bounded number of times", ready, []error{outlived, outlived, outlived, outlived}, true, maxUpdateAttempts, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &racingClient{fail: tt.fail, running: tt.running}
			r, err := NextStep(context.Background(), c, "acme/widgets#7", tt.req)
			assert.Equal(t, tt.ok, err == nil, "%v", err)
			if tt.ok {
				assert.Equal(t, "acme/widgets#7", r.MonitorID)
			}
			assert.Equal(t, tt.updates, c.updates)
		})
	}
}
