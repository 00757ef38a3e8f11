package temporaltest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func greet(ctx workflow.Context, name string) (string, error) {
	var out string
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	err := workflow.ExecuteActivity(ctx, shout, name).Get(ctx, &out)
	return out, err
}

func shout(_ context.Context, name string) (string, error) { return "hello, " + name + "!", nil }

func TestTheDevServerRunsAWorkflowAndItsActivityThroughAWorker(t *testing.T) {
	s := Start(t, "prmonitor-test")
	assert.Equal(t, "prmonitor-test", s.Namespace)
	c := s.Client(t)
	w := worker.New(c, "greetings", worker.Options{})
	w.RegisterWorkflow(greet)
	w.RegisterActivity(shout)
	require.NoError(t, w.Start())
	defer w.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "greet-1", TaskQueue: "greetings"}, greet, "team")
	require.NoError(t, err)
	var out string
	require.NoError(t, run.Get(ctx, &out))
	assert.Equal(t, "hello, team!", out)
}

func TestStoppingTheDevServerEndsItsProcess(t *testing.T) {
	s := Start(t, "")
	assert.Equal(t, "default", s.Namespace)
	require.NoError(t, s.Stop())
	assert.True(t, s.cmd.ProcessState.Exited(), "the process ended on SIGTERM")
	assert.True(t, s.cmd.ProcessState.Success(), "and exited cleanly")
}

func TestTheDevServerEndsWhenItsStandardInputCloses(t *testing.T) {
	s := Start(t, "")
	require.NoError(t, s.stdin.Close())
	select {
	case <-s.exited:
		assert.NoError(t, s.waitErr, "a closed stdin is a clean stop")
	case <-time.After(time.Minute):
		t.Fatal("the server kept running after its stdin closed")
	}
}
