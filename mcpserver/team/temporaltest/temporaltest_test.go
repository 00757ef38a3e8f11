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
	assert.False(t, s.Running())
	assert.True(t, s.proc().cmd.ProcessState.Exited(), "the process ended on SIGTERM")
	assert.True(t, s.proc().cmd.ProcessState.Success(), "and exited cleanly")
}

func TestTheDevServerEndsWhenItsStandardInputCloses(t *testing.T) {
	s := Start(t, "")
	p := s.proc()
	require.NoError(t, p.stdin.Close())
	select {
	case <-p.exited:
		assert.NoError(t, p.waitErr, "a closed stdin is a clean stop")
	case <-time.After(time.Minute):
		t.Fatal("the server kept running after its stdin closed")
	}
}

// hold waits for the signal "go" and returns what it carried, with the result of an activity.
func hold(ctx workflow.Context) (string, error) {
	var v string
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, &v)
	return greet(ctx, v)
}

func TestARestartedPersistentServerKeepsItsAddressAndItsWorkflowsAndItsWorkersCarryOn(t *testing.T) {
	s := StartWith(t, Options{Persistent: true})
	addr := s.HostPort
	c := s.Client(t)
	w := worker.New(c, "holds", worker.Options{})
	w.RegisterWorkflow(hold)
	w.RegisterActivity(shout)
	require.NoError(t, w.Start())
	defer w.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "hold-1", TaskQueue: "holds"}, hold)
	require.NoError(t, err)

	require.NoError(t, s.Stop())
	assert.False(t, s.Running())
	require.NoError(t, s.Restart())
	restarted := time.Now()
	assert.True(t, s.Running())
	assert.Equal(t, addr, s.HostPort, "the same address")

	// The client and the worker from before the restart: they reconnect on their own. The
	// workflow needs a task from a poll (its activity's result) after the restart: a server that
	// took the last run's members for peers handed none out for about a minute.
	require.NoError(t, c.SignalWorkflow(ctx, "hold-1", "", "go", "again"))
	var out string
	require.NoError(t, c.GetWorkflow(ctx, "hold-1", "").Get(ctx, &out), "the workflow started before the restart ran on")
	assert.Equal(t, "hello, again!", out)
	assert.Less(t, time.Since(restarted), 30*time.Second, "the workers got their tasks soon after the restart")
}

func TestAServerInMemoryRefusesToRestart(t *testing.T) {
	s := Start(t, "")
	err := s.Restart()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Persistent")
	assert.True(t, s.Running(), "and is left running")
}
