package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// rawClient speaks JSON-RPC lines to a server over pipes, to see exactly what the server writes.
type rawClient struct {
	t     *testing.T
	w     io.Writer
	lines chan map[string]any
}

func (c *rawClient) send(format string, args ...any) {
	c.t.Helper()
	_, err := fmt.Fprintf(c.w, format+"\n", args...)
	require.NoError(c.t, err)
}

// until reads messages until one answers id, and returns every message read meanwhile.
func (c *rawClient) until(id float64, within time.Duration) []map[string]any {
	c.t.Helper()
	var seen []map[string]any
	timeout := time.After(within)
	for {
		select {
		case m := <-c.lines:
			seen = append(seen, m)
			if m["id"] == id && m["method"] == nil {
				return seen
			}
		case <-timeout:
			c.t.Fatalf("no answer to request %v within %s; read %v", id, within, seen)
		}
	}
}

func TestCancelledRequestGetsNoResponseAndTheMonitorStaysIntact(t *testing.T) {
	t.Parallel() // waits out a call's deadline: beside the other tests
	fake := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(testToken))
	url := fake.Start()
	t.Cleanup(fake.Close)
	ref := prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}
	require.NoError(t, fake.Apply(githubfake.Ref(ref), githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}}))
	srv, err := New(Config{
		Connect: func(context.Context) (GitHub, error) {
			return ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken(testToken)})
		},
		MaxBlock: 500 * time.Millisecond,
	})
	require.NoError(t, err)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.ServeStdio(ctx, sr, sw); _ = sw.Close() }()
	c := &rawClient{t: t, w: cw, lines: make(chan map[string]any, 100)}
	go func() {
		sc := bufio.NewScanner(cr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				c.lines <- m
			}
		}
	}()
	t.Cleanup(func() { cancel(); _ = cw.Close(); <-served; _ = cr.Close() })

	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"contract.ClientInfo":{"name":"raw","version":"1"}}}`)
	c.until(1, 5*time.Second)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pr_monitor_start","arguments":{"pr":"acme/widgets#7"}}}`)
	c.until(2, 5*time.Second)

	c.send(`{"jsonrpc":"2.0","id":"call-3","method":"tools/call","params":{"name":"pr_monitor_next_step","arguments":{"monitor_id":"acme/widgets#7","event":"ready"}}}`)
	driving := func() bool { m, ok := srv.mons.Live("acme/widgets#7"); return ok && driven(m) }
	require.Eventually(t, driving, 5*time.Second, time.Millisecond, "the call is blocked, watching CI")
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"call-3","reason":"user interrupted"}}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	seen := c.until(4, 5*time.Second)
	require.Eventually(t, func() bool { return !driving() }, 5*time.Second, time.Millisecond, "the cancelled call lets the monitor go")

	c.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"pr_monitor_status","arguments":{"monitor_id":"acme/widgets#7"}}}`)
	status := c.until(5, 5*time.Second)
	seen = append(seen, status...)
	res := status[len(status)-1]["result"].(map[string]any)
	mon := res["structuredContent"].(map[string]any)["monitors"].([]any)[0].(map[string]any)
	assert.Equal(t, "polling", mon["state"], "the monitor is intact: still watching")

	// A request that is not cancelled is answered as ever, after its own bound: the cancelled
	// call's would have come by then.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"pr_monitor_next_step","arguments":{"monitor_id":"acme/widgets#7","event":"ready"}}}`)
	answered := c.until(6, 10*time.Second)
	for _, m := range append(seen, answered...) {
		assert.NotEqual(t, "call-3", m["id"], "no response to the cancelled request: %v", m)
	}
	assert.NotNil(t, answered[len(answered)-1]["result"])
}
