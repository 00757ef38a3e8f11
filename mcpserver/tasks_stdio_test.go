package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// tasksOverStdio serves the server over in-process pipes (its stdio path: mcp-go's stdio server
// behind the cancel filter) to mcp-go's client, which speaks tasks, so -race sees a task's
// detached call, its progress and its cancellation.
func tasksOverStdio(t *testing.T) (*Server, *githubfake.Fake, *client.Client, *transport.Stdio, *atomic.Int64) {
	t.Helper()
	fake := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(testToken), githubfake.WithRateLimit(1<<30))
	url := fake.Start()
	t.Cleanup(fake.Close)
	srv, err := New(Config{
		Version: "test",
		Connect: func(context.Context) (GitHub, error) {
			return ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken(testToken), Version: "test"})
		},
		Watch:         fastWatch(),
		MaxBlock:      100 * time.Millisecond,
		ProgressEvery: 20 * time.Millisecond,
	})
	require.NoError(t, err)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.ServeStdio(ctx, sr, sw); _ = sw.Close() }()
	tr := transport.NewIO(cr, cw, io.NopCloser(strings.NewReader("")))
	c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
	require.NoError(t, c.Start(ctx))
	progress := &atomic.Int64{}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) {
			progress.Add(1)
		}
	})
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mcp.Implementation{Name: "tasks", Version: "1"}
	init.Params.Capabilities = mcp.ClientCapabilities{Tasks: mcp.NewTasksCapability()}
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = c.Close()
		cancel()
		_ = cw.Close()
		<-served
	})
	return srv, fake, c, tr, progress
}

// TestATaskOutlivesItsRequestAndStopsOnTasksCancel: over stdio the task keeps watching well past
// the bound of a plain call (its tools/call request ended at once), sends progress, and stops on
// tasks/cancel; a plain call then finds the monitor where it was.
func TestATaskOutlivesItsRequestAndStopsOnTasksCancel(t *testing.T) {
	srv, fake, c, tr, progress := tasksOverStdio(t)
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	require.NoError(t, fake.Apply(githubfake.Ref(ref), githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}}))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_monitor_start", Arguments: map[string]any{"pr": ref.String()}}})
	require.NoError(t, err)

	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId("t1"), Method: "tools/call",
		Params: map[string]any{"name": "pr_monitor_next_step", "arguments": map[string]any{"monitor_id": ref.String(), "event": "ready"},
			"task": map[string]any{}, "_meta": map[string]any{"progressToken": "t1"}}})
	require.NoError(t, err)
	require.Nil(t, resp.Error)
	var created struct{ Task mcp.Task }
	require.NoError(t, json.Unmarshal(resp.Result, &created))
	id := created.Task.TaskId
	require.NotEmpty(t, id, string(resp.Result))

	asked := time.Now()
	require.Eventually(t, func() bool { return progress.Load() > 5 && time.Since(asked) > 5*srv.cfg.MaxBlock }, 10*time.Second, 5*time.Millisecond,
		"five plain-call bounds pass, with progress")
	got, err := c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}})
	require.NoError(t, err)
	require.Equal(t, mcp.TaskStatusWorking, got.Status)
	m, ok := srv.mons.Live(ref.String())
	require.True(t, ok)
	busy := func() bool { return driven(m) }
	assert.True(t, busy(), "the task's call still waits on the watcher")
	assert.Greater(t, graphQLQueries(fake), 10, "the watcher kept looking")

	_, err = c.CancelTask(ctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: id}})
	require.NoError(t, err)
	// The call ends on tasks/cancel (the watcher goes on watching the monitor for the next call).
	require.Eventually(t, func() bool { return !busy() }, 5*time.Second, 5*time.Millisecond, "the task's call ended")

	require.NoError(t, fake.Apply(githubfake.Ref(ref), githubfake.CheckCompleted{Name: "test", Conclusion: "FAILURE", Log: "FAIL"}))
	var out contract.ActionOutput
	var raw []byte
	for i := 0; i < 20 && out.Action != "execute"; i++ { // a plain call returns polling by its 100ms bound
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pr_monitor_next_step",
			Arguments: map[string]any{"monitor_id": ref.String(), "event": "ready"}}})
		require.NoError(t, err)
		raw, err = json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &out))
	}
	assert.Equal(t, "investigate_ci_failure", out.Task, "the monitor goes on: %s", raw)
}
