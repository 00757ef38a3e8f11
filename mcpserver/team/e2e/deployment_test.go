package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/mcpserver/team/temporaltest"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

const (
	ghToken = "ghs_E2EAPPTOKEN0123456789abcdefghijklmn"
	secret  = "webhook-secret-for-the-team-e2e"
)

var tokens = map[string]string{"alice": "alice-e2e-bearer-0123456789", "bob": "bob-e2e-bearer-0123456789"}

// request is one request that reached the fake, when it arrived (wall clock).
type request struct {
	at      time.Time
	method  string
	path    string
	graphql bool
	// write: the request changes something on GitHub (a REST call other than GET, a GraphQL
	// mutation); body is then what it sent.
	write bool
	body  string
}

// recorded is r as the recorder keeps it; r's body is read and put back.
func recorded(r *http.Request) request {
	rec := request{at: time.Now(), method: r.Method, path: r.URL.Path, graphql: strings.HasSuffix(r.URL.Path, "/graphql")}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Body == nil {
		return rec
	}
	b, err := io.ReadAll(r.Body) // whole: the fake reads what the recorder put back
	r.Body = io.NopCloser(bytes.NewReader(b))
	if err != nil {
		return rec
	}
	rec.write = !rec.graphql
	if rec.graphql {
		var q struct {
			Query string `json:"query"`
		}
		rec.write = json.Unmarshal(b, &q) == nil && strings.HasPrefix(strings.TrimSpace(q.Query), "mutation")
	}
	if rec.write {
		rec.body = string(b)
	}
	return rec
}

// deployment is the team deployment on one machine: Temporal, the fake GitHub behind a recorder,
// the built binary's workers and front end.
type deployment struct {
	t      *testing.T
	srv    *temporaltest.Server
	c      client.Client
	fake   *githubfake.Fake
	github *httptest.Server
	bin    string
	dir    string
	queue  string

	mu   sync.Mutex
	seen []request
}

type options struct {
	fake []githubfake.Option
	// persistent: the Temporal server keeps its state in a file on a fixed port, so that
	// d.srv.Restart brings it back as the same server.
	persistent bool
}

func newDeployment(t *testing.T, o options) *deployment {
	if testing.Short() {
		t.Skip("end to end (the built binary, a real Temporal server): runs without -short")
	}
	srv := temporaltest.StartWith(t, temporaltest.Options{Persistent: o.persistent})
	bin := teamtest.Binary(t)
	fake := githubfake.MustNew(append([]githubfake.Option{githubfake.WithViewer("prmonitor-app"), githubfake.WithToken(ghToken)}, o.fake...)...)
	d := &deployment{t: t, srv: srv, c: srv.Client(t), fake: fake, bin: bin, dir: t.TempDir(), queue: "e2e"}
	d.github = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := recorded(r)
		d.mu.Lock()
		d.seen = append(d.seen, rec)
		d.mu.Unlock()
		fake.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { d.github.CloseClientConnections(); d.github.Close() })
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "webhook-secret"), []byte(secret+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "tokens"), []byte(teamtest.UsersFile(tokens)), 0o600))
	return d
}

// requests are the requests the fake received since from.
func (d *deployment) requests(from time.Time) []request {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []request
	for _, r := range d.seen {
		if !r.at.Before(from) {
			out = append(out, r)
		}
	}
	return out
}

// run starts the binary with args and waits for the log line ready names.
func (d *deployment) run(ready *regexp.Regexp, args ...string) *teamtest.Proc {
	d.t.Helper()
	return teamtest.Start(d.t, d.bin, []string{"GITHUB_TOKEN=" + ghToken, "HOME=" + d.t.TempDir(), "PATH=/usr/bin:/bin"}, ready, args...)
}

var (
	workerReady = regexp.MustCompile(`msg="webhook listening" addr=(\S+)`)
	serveReady  = regexp.MustCompile(`msg="prmonitor HTTP front end listening" addr=(\S+)`)
)

// worker starts `prmonitor worker` with its webhook.
func (d *deployment) worker(extra ...string) *teamtest.Proc {
	return d.run(workerReady, append([]string{"worker", "--temporal", d.srv.HostPort, "--namespace", d.srv.Namespace, "--task-queue", d.queue,
		"--github-url", d.github.URL, "--webhook-listen", "127.0.0.1:0", "--webhook-secret-file", filepath.Join(d.dir, "webhook-secret")}, extra...)...)
}

// serve starts `prmonitor serve --http`.
func (d *deployment) serve() *teamtest.Proc {
	return d.run(serveReady, "serve", "--http", "127.0.0.1:0", "--temporal", d.srv.HostPort, "--namespace", d.srv.Namespace,
		"--task-queue", d.queue, "--auth-tokens", filepath.Join(d.dir, "tokens"))
}

// open opens a green pull request by author.
func (d *deployment) open(r prstatus.PRRef, author string, more ...githubfake.Event) {
	d.t.Helper()
	events := append([]githubfake.Event{githubfake.OpenPR{Title: "Add retries", Author: githubfake.User(author)},
		githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}}, more...)
	require.NoError(d.t, d.fake.Apply(githubfake.Ref(r), events...))
}

// deliver posts a delivery to the worker's webhook, signed with key, and returns the status.
func (d *deployment) deliver(w *teamtest.Proc, event, id, body string, key []byte) int {
	d.t.Helper()
	return teamtest.Deliver(d.t, w.Addr, event, id, body, key)
}

// prEvent is a pull request delivery of r by author (a member).
func prEvent(event, action string, r prstatus.PRRef, author string) string {
	extra := ""
	if event == "pull_request_review" {
		extra = `"review":{"state":"changes_requested"},`
	}
	return fmt.Sprintf(`{"action":%q,%s"pull_request":{"number":%d,"author_association":"MEMBER","user":{"login":%q}},"repository":{"name":%q,"owner":{"login":%q}}}`,
		action, extra, r.Number, author, r.Repo, r.Owner)
}

// status queries a monitor.
func (d *deployment) status(r prstatus.PRRef) (monitorwf.Status, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return monitorwf.QueryMonitor(ctx, d.c, monitorwf.WorkflowID(r))
}

// history is every run of workflow id's history as text (the payloads' JSON in it as it is),
// for what must never be in it.
func (d *deployment) history(id string) string {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runs := []string{""} // the latest, which visibility may not list yet
	resp, err := d.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: d.srv.Namespace,
		Query: fmt.Sprintf("WorkflowId = '%s'", id)})
	require.NoError(d.t, err)
	for _, e := range resp.Executions {
		runs = append(runs, e.GetExecution().GetRunId())
	}
	var b strings.Builder
	for _, run := range runs {
		it := d.c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			require.NoError(d.t, err)
			b.WriteString(ev.String())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// eventually waits (up to within) until ok; explain, when given, says what was seen last.
func (d *deployment) eventually(within time.Duration, ok func() bool, what string, explain ...func() string) {
	d.t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			for _, e := range explain {
				what += "\n" + e()
			}
			d.t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// agent is a user's MCP session with the front end over Streamable HTTP.
type agent struct {
	t *testing.T
	s *sdk.ClientSession
}

func (d *deployment) agent(front *teamtest.Proc, user, protocol string) *agent {
	d.t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e-agent", Version: "1.0"}, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + front.Addr + "/mcp",
		HTTPClient: teamtest.HTTPClient(tokens[user])}, &sdk.ClientSessionOptions{ProtocolVersion: protocol})
	require.NoError(d.t, err)
	d.t.Cleanup(func() { _ = s.Close() })
	return &agent{t: d.t, s: s}
}

// call calls a tool and returns its structured result; a tool error fails the test.
func (a *agent) call(name string, args map[string]any) map[string]any {
	a.t.Helper()
	return a.structured(name, <-a.callLater(name, args))
}

// callLater calls a tool in the background (teamtest.CallLater).
func (a *agent) callLater(name string, args map[string]any) <-chan teamtest.Answer {
	return teamtest.CallLater(a.s, name, args)
}

// structured is an answer's structured result; a failed call or a tool error fails the test.
func (a *agent) structured(name string, got teamtest.Answer) map[string]any {
	a.t.Helper()
	require.NoError(a.t, got.Err, name)
	out, err := structured(got.Result)
	require.NoError(a.t, err, name)
	return out
}

// callWaits waits until a next_step call waits in r's monitor (teamtest.CallWaits).
func (d *deployment) callWaits(r prstatus.PRRef) {
	d.t.Helper()
	teamtest.CallWaits(d.t, d.c, monitorwf.WorkflowID(r))
}

// structured is a tool result's structured content; a tool error is an error with its text.
func structured(res *sdk.CallToolResult) (map[string]any, error) {
	if res.IsError {
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text += tc.Text
			}
		}
		return nil, fmt.Errorf("a tool error: %s", text)
	}
	var out map[string]any
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	return out, json.Unmarshal(b, &out)
}
