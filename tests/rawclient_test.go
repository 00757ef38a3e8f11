package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rawClient is a minimal MCP client written for these tests: newline-delimited JSON-RPC over the
// built binary's stdin and stdout, with nothing of any SDK. It speaks what the SDKs here do not:
// the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks: tasks/get, tasks/update,
// tasks/cancel) and Claude Code's channel notifications (notifications/claude/channel), which it
// records as they arrive.
type rawClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	stderr *syncBuffer
	done   chan struct{}

	mu      sync.Mutex
	seq     int
	waiting map[string]chan rawMessage
	notes   []rawMessage
	// onRequest answers a request of the server's (elicitation/create, a ping); nil: an error.
	onRequest func(rawMessage) (any, *rawError)
}

type rawMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rawError       `json:"error,omitempty"`
	at     time.Time
}

type rawError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// launchRaw starts prmonitor serve with the world's flags and more, and reads its output.
func (w *world) launchRaw(flags ...string) *rawClient {
	w.t.Helper()
	args := append([]string{"serve", "--github-url", w.fake.URL(), "--state-dir", w.stateDir,
		"--poll-busy", "15ms", "--poll-quiet", "15ms", "--poll-other", "15ms", "--max-block", w.maxBlock()}, w.flags...)
	c := &rawClient{t: w.t, stderr: &syncBuffer{}, done: make(chan struct{}), waiting: map[string]chan rawMessage{}}
	c.cmd = exec.Command(binary, append(args, flags...)...)
	c.cmd.Env = []string{"GITHUB_TOKEN=" + token, "HOME=" + w.stateDir, "PATH=/usr/bin:/bin"}
	c.cmd.Stderr = c.stderr
	var err error
	c.in, err = c.cmd.StdinPipe()
	require.NoError(w.t, err)
	out, err := c.cmd.StdoutPipe()
	require.NoError(w.t, err)
	require.NoError(w.t, c.cmd.Start())
	go c.read(out)
	w.t.Cleanup(c.close)
	return c
}

func (c *rawClient) read(out io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var m rawMessage
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			c.t.Errorf("the server wrote a line that is not JSON-RPC on stdout: %q", sc.Text())
			continue
		}
		m.at = time.Now()
		switch {
		case m.Method != "" && len(m.ID) > 0:
			go c.answerServer(m)
		case m.Method != "":
			c.mu.Lock()
			c.notes = append(c.notes, m)
			c.mu.Unlock()
		default:
			c.mu.Lock()
			ch := c.waiting[string(m.ID)]
			delete(c.waiting, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (c *rawClient) answerServer(m rawMessage) {
	c.mu.Lock()
	h := c.onRequest
	c.mu.Unlock()
	res, e := any(nil), &rawError{Code: -32601, Message: "not supported by this client"}
	if m.Method == "ping" {
		res, e = map[string]any{}, nil
	} else if h != nil {
		res, e = h(m)
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res, "error": e})
}

func (c *rawClient) send(v any) {
	b, err := json.Marshal(v)
	require.NoError(c.t, err)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.in.Write(append(b, '\n'))
	require.NoError(c.t, err)
}

// call sends a request and waits for its answer.
func (c *rawClient) call(method string, params any) rawMessage {
	c.t.Helper()
	c.mu.Lock()
	c.seq++
	seq := c.seq
	ch := make(chan rawMessage, 1)
	c.waiting[fmt.Sprintf("%d", seq)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": seq, "method": method, "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case m := <-ch:
		return m
	case <-ctx.Done():
		c.t.Fatalf("no answer to %s; server stderr:\n%s", method, c.stderr.String())
	case <-c.done:
		c.t.Fatalf("the server exited before answering %s; stderr:\n%s", method, c.stderr.String())
	}
	return rawMessage{}
}

// notify sends a notification.
func (c *rawClient) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// notifications are the notifications of method received so far.
func (c *rawClient) notifications(method string) []rawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []rawMessage
	for _, n := range c.notes {
		if n.Method == method {
			out = append(out, n)
		}
	}
	return out
}

// initialize runs the 2025-11-25 handshake as a client named name with capabilities caps.
func (c *rawClient) initialize(name string, caps map[string]any) rawMessage {
	c.t.Helper()
	res := c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": caps,
		"clientInfo": map[string]any{"name": name, "version": "1"}})
	require.Nil(c.t, res.Error, "initialize")
	c.notify("notifications/initialized", map[string]any{})
	return res
}

func (c *rawClient) close() {
	_ = c.in.Close()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
	_ = c.cmd.Wait()
	require.NotContains(c.t, c.stderr.String(), token, "the token never appears in the server's logs")
	require.NotContains(c.t, c.stderr.String(), "WARNING: DATA RACE", "the server (built with -race under -race) never races")
}

// modernMeta is a 2026-07-28 request's _meta: the protocol version, who the client is and what it
// can do, on every request.
func modernMeta(caps map[string]any) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw-e2e", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// tool decodes a tools/call result's structured content into out, failing on a protocol or tool
// error.
func (c *rawClient) tool(res rawMessage, out any) {
	c.t.Helper()
	require.Nil(c.t, res.Error, "protocol error")
	var r struct {
		IsError           bool            `json:"isError"`
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	require.NoError(c.t, json.Unmarshal(res.Result, &r), string(res.Result))
	require.False(c.t, r.IsError, "tool error: %s", r.Content)
	require.NoError(c.t, json.Unmarshal(r.StructuredContent, out), string(res.Result))
}
