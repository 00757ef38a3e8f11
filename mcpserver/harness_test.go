package mcpserver

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/watch"
)

const testToken = "ghp_TESTTOKEN0123456789abcdefghijklmnop"

// user answers elicitations; model answers sampling. Either may be nil (capability not offered).
type harnessOpts struct {
	protocol string
	user     func(*sdk.ElicitParams) *sdk.ElicitResult
	model    func(*sdk.CreateMessageParams) string
	cfg      func(*Config)
	wire     bool // keep every line the server writes (h.wire), to measure what goes over the pipe
	// client is the contract.ClientInfo name the client gives ("harness" when empty).
	client string
	// failForms: the client declares elicitation but fails every form (a host that cannot show it).
	failForms bool
	// writePace paces the client's writes (the fake, on loopback, is not paced otherwise).
	writePace *ghclient.WritePace
}

type harness struct {
	t       testing.TB
	fake    *githubfake.Fake
	ref     prstatus.PRRef
	srv     *Server
	session *sdk.ClientSession
	state   *monitor.MemoryState

	mu        sync.Mutex
	wire      [][]byte // every line the server wrote, when harnessOpts.wire
	progress  []string
	elicited  []*sdk.ElicitParams
	sampled   []*sdk.CreateMessageParams
	lastStart contract.StartOutput
	schemas   conformance
}

// parallelSafe: mcp-go's stdio server keeps one session for the whole process
// (stdioSessionInstance): while two harnesses serve at once, the client that initialized last sets
// the session's client info, capabilities and protocol version, and server-initiated requests and
// notifications (elicitation, sampling, progress) may reach either client. Top-level tests that
// call t.Parallel run only beside each other, after the others; a test may do so when none of
// that matters to it: the 2026-07-28 era (capabilities and version come with each request), no
// user or model (nothing is asked of the client), no progress counted, no host named.
func newHarness(t testing.TB, o harnessOpts) *harness {
	t.Helper()
	// A rate limit far above GitHub's: the watcher's budget then allows its shortest cycle.
	fake := githubfake.MustNew(githubfake.WithViewer("dev"), githubfake.WithToken(testToken), githubfake.WithRateLimit(1<<30))
	url := fake.Start()
	t.Cleanup(fake.Close)
	h := &harness{t: t, fake: fake, ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}, state: monitor.NewMemoryState()}
	cfg := Config{
		Version: "test",
		Connect: func(context.Context) (GitHub, error) {
			// A request its call gave up on is abandoned soon (the fake's hanging faults last a
			// minute; GitHub's rate limiter answers at once).
			return ghclient.New(ghclient.Config{RESTURL: url, GraphQLURL: url + "/graphql", Token: ghclient.NewToken(testToken), Version: "test",
				WritePace: o.writePace, Retry: ghclient.RetryPolicy{LateAnswerWait: 100 * time.Millisecond}})
		},
		State:         h.state,
		Watch:         fastWatch(),
		MaxBlock:      3 * time.Second,
		ProgressEvery: 2 * time.Millisecond,
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	srv, err := New(cfg)
	require.NoError(t, err)
	h.srv = srv

	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	var out io.Writer = sw
	if o.wire {
		out = &tap{w: sw, h: h}
	}
	go func() { defer close(served); _ = srv.ServeStdio(ctx, sr, out); _ = sw.Close() }()

	opts := &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
		h.mu.Lock()
		h.progress = append(h.progress, r.Params.Message)
		h.mu.Unlock()
	}}
	if o.user != nil || o.failForms {
		opts.ElicitationHandler = func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			h.mu.Lock()
			h.elicited = append(h.elicited, r.Params)
			h.mu.Unlock()
			var res *sdk.ElicitResult
			if !o.failForms {
				res = o.user(r.Params)
			}
			if res == nil { // failForms, or a user func that makes the host fail this form
				return nil, errors.New("this host cannot show the form")
			}
			return res, nil
		}
	}
	if o.model != nil {
		opts.CreateMessageHandler = func(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			h.mu.Lock()
			h.sampled = append(h.sampled, r.Params)
			h.mu.Unlock()
			return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: o.model(r.Params)}, Model: "scripted", Role: "assistant"}, nil
		}
	}
	name := o.client
	if name == "" {
		name = "harness"
	}
	client := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, opts)
	session, err := client.Connect(ctx, &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: o.protocol})
	require.NoError(t, err)
	h.session = session
	t.Cleanup(func() {
		_ = session.Close()
		cancel()
		_ = cw.Close()
		<-served
	})
	return h
}

// poll waits until cond holds, or ten seconds pass; from any goroutine, as it never fails the
// test (what follows does).
func poll(cond func() bool) {
	for end := time.Now().Add(10 * time.Second); !cond() && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
}

// fastWatch is a watcher that looks every few milliseconds: the fake's limit, far above GitHub's,
// which it reads from the first response, lets its budget allow its shortest cycle.
func fastWatch() watch.Config {
	return watch.Config{MinCycle: 5 * time.Millisecond, MaxCycle: 20 * time.Millisecond, Jitter: -1,
		HotRefresh: 50 * time.Millisecond, HotWindow: time.Second}
}

// call invokes a tool and returns its structured result as JSON, or the error text.
func (h *harness) call(name string, args any) (json.RawMessage, string) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken("p1")
	res, err := h.session.CallTool(ctx, params)
	require.NoError(h.t, err, "protocol error calling %s", name)
	if res.IsError {
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text += tc.Text
			}
		}
		return nil, text
	}
	h.schemas.check(h.t, h.srv, name, res.StructuredContent)
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(h.t, err)
	return b, ""
}

// tap keeps a copy of every line the server writes.
type tap struct {
	w       io.Writer
	h       *harness
	partial []byte
}

func (t *tap) Write(p []byte) (int, error) {
	t.h.mu.Lock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.h.wire = append(t.h.wire, append([]byte(nil), t.partial[:i]...))
		t.partial = t.partial[i+1:]
	}
	t.h.mu.Unlock()
	return t.w.Write(p)
}

// wireLine is the last line the server wrote that contains s.
func (h *harness) wireLine(s string) []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := len(h.wire) - 1; i >= 0; i-- {
		if bytes.Contains(h.wire[i], []byte(s)) {
			return h.wire[i]
		}
	}
	return nil
}

func (h *harness) start() contract.StartOutput {
	h.t.Helper()
	raw, errText := h.call("pr_monitor_start", map[string]any{"pr": h.ref.String()})
	require.Empty(h.t, errText)
	var out contract.StartOutput
	require.NoError(h.t, json.Unmarshal(raw, &out))
	h.lastStart = out
	return out
}

func (h *harness) next(event, choice string, data map[string]any) contract.ActionOutput {
	h.t.Helper()
	args := map[string]any{"monitor_id": h.ref.String(), "event": event}
	if choice != "" {
		args["choice"] = choice
	}
	if data != nil {
		args["data"] = data
	}
	raw, errText := h.call("pr_monitor_next_step", args)
	require.Empty(h.t, errText, "next_step %s %s", event, choice)
	var out contract.ActionOutput
	require.NoError(h.t, json.Unmarshal(raw, &out))
	return out
}

func (h *harness) apply(events ...githubfake.Event) {
	h.t.Helper()
	require.NoError(h.t, h.fake.Apply(githubfake.Ref(h.ref), events...))
}

// choose answers every elicitation with the value picked by pick from the offered consts.
func choose(pick func(message string, values []string) string) func(*sdk.ElicitParams) *sdk.ElicitResult {
	return func(p *sdk.ElicitParams) *sdk.ElicitResult {
		schema, _ := json.Marshal(p.RequestedSchema)
		var s struct {
			Properties struct {
				Choice struct {
					OneOf []struct {
						Const string `json:"const"`
					} `json:"oneOf"`
				} `json:"choice"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(schema, &s)
		var values []string
		for _, o := range s.Properties.Choice.OneOf {
			values = append(values, o.Const)
		}
		v := pick(p.Message, values)
		if v == "" {
			return &sdk.ElicitResult{Action: "cancel"}
		}
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": v}}
	}
}
