package tests

//lint:file-ignore SA1019 the sampling API, deprecated by 2026-07-28, is served on purpose (docs/architecture.md)

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

const token = "ghp_E2ETOKEN0123456789abcdefghijklmnopqr"

// profile is a kind of MCP client.
type profile struct {
	name     string
	protocol string
	elicit   bool
	sample   bool
}

var profiles = []profile{
	{"2025-11-25 with elicitation and sampling", "2025-11-25", true, true},
	{"2026-07-28 with elicitation and sampling", "2026-07-28", true, true},
	{"2026-07-28 without elicitation or sampling", "2026-07-28", false, false},
}

// world is the fake GitHub, the prmonitor process and an MCP client session to it.
type world struct {
	t        *testing.T
	fake     *githubfake.Fake
	ref      prstatus.PRRef
	stateDir string
	session  *sdk.ClientSession
	cmd      *exec.Cmd
	stderr   *syncBuffer
	prof     profile
	user     func(q question) string
	model    func(p *sdk.CreateMessageParams) string
	// client adjusts the MCP client before it connects (capabilities, refusing handlers).
	client func(*sdk.ClientOptions)

	mu       sync.Mutex
	elicited []question
	sampled  int
	progress int
	// outputs are every tool result, for the token sweep.
	outputs []string
	// mergesAllowed counts the user's merge choices; the fake fails the test on any merge beyond.
	mergesAllowed int
	merges        int
	// block overrides the server's --max-block (see maxBlock).
	block string
	// flags are more flags for prmonitor serve.
	flags []string
}

// question is what the user was asked, whichever way it reached them.
type question struct {
	ID     string
	Text   string
	Values []string
}

func newWorld(t *testing.T, prof profile, opts ...githubfake.Option) *world {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end (the built binary over stdio): runs without -short")
	}
	w := &world{t: t, ref: prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}, stateDir: t.TempDir(), prof: prof,
		user: func(question) string { return "" }, model: func(*sdk.CreateMessageParams) string { return "" }}
	// A rate limit far above GitHub's: the server's watcher reads it from the first response, and
	// its budget then lets it look every few milliseconds. GitHub's clock is the fake's own (it
	// moves only with Advance), not the server's: the watcher compares GitHub's times only with
	// GitHub's.
	opts = append([]githubfake.Option{githubfake.WithViewer("dev"), githubfake.WithToken(token), githubfake.WithMergeHook(w.onMerge),
		githubfake.WithRateLimit(fakeLimit)}, opts...)
	w.fake = githubfake.MustNew(opts...)
	w.fake.Start()
	t.Cleanup(w.fake.Close)
	return w
}

// fakeLimit is the fake GitHub's hourly points.
const fakeLimit = 1 << 30

// onMerge fails the test on any merge the user did not choose.
func (w *world) onMerge(m githubfake.Merge) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.merges++
	if w.merges > w.mergesAllowed {
		w.t.Errorf("a merge the user did not choose: %+v", m)
	}
}

// answered records the user's answer; a merge choice (merging now, through the queue, or by
// GitHub with auto-merge) allows one merge.
func (w *world) answered(v string) {
	if v == "merge" || v == "merge_admin" || v == "auto_merge" {
		w.mu.Lock()
		w.mergesAllowed++
		w.mu.Unlock()
	}
}

// maxBlock is the server's --max-block: short, so a story that waits for nothing runs fast; a
// world whose steps are heavy (huge payloads under -race on a loaded machine) sets a longer one so
// no step is cut by the deadline.
func (w *world) maxBlock() string {
	if w.block != "" {
		return w.block
	}
	return "400ms"
}

// launch starts prmonitor serve and connects the client.
func (w *world) launch() {
	w.t.Helper()
	args := append([]string{"serve", "--github-url", w.fake.URL(), "--state-dir", w.stateDir,
		"--poll-busy", "15ms", "--poll-quiet", "15ms", "--poll-other", "15ms", "--max-block", w.maxBlock()}, w.flags...)
	cmd := exec.Command(binary, args...)
	cmd.Env = []string{"GITHUB_TOKEN=" + token, "HOME=" + w.stateDir, "PATH=/usr/bin:/bin"}
	w.stderr = &syncBuffer{}
	cmd.Stderr = w.stderr
	opts := &sdk.ClientOptions{ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
		w.mu.Lock()
		w.progress++
		w.mu.Unlock()
	}}
	if w.prof.elicit {
		opts.ElicitationHandler = w.onElicit
	}
	if w.prof.sample {
		opts.CreateMessageHandler = w.onSample
	}
	if w.client != nil {
		w.client(opts)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, opts)
	session, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
		&sdk.ClientSessionOptions{ProtocolVersion: w.prof.protocol})
	require.NoError(w.t, err)
	w.session, w.cmd = session, cmd
	w.t.Cleanup(w.close)
}

func (w *world) close() {
	if w.session != nil {
		_ = w.session.Close()
		w.session = nil
	}
	require.NotContains(w.t, w.stderr.String(), token, "the token never appears in the server's logs")
	require.NotContains(w.t, w.stderr.String(), "WARNING: DATA RACE", "the server (built with -race under -race) never races")
}

func (w *world) onElicit(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	q := question{Text: r.Params.Message}
	if id, ok := r.Params.Meta["prmonitor/question"].(string); ok {
		q.ID = id
	}
	schema, _ := json.Marshal(r.Params.RequestedSchema)
	var s struct {
		Properties struct {
			Choice struct {
				OneOf []struct{ Const string } `json:"oneOf"`
			} `json:"choice"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	for _, o := range s.Properties.Choice.OneOf {
		q.Values = append(q.Values, o.Const)
	}
	w.mu.Lock()
	w.elicited = append(w.elicited, q)
	w.mu.Unlock()
	v := w.user(q)
	if q.ID == "action_failed" && v == "retry" && strings.Contains(q.Text, "merge") {
		w.answered("merge")
	}
	w.answered(v)
	switch {
	case v == "":
		return &sdk.ElicitResult{Action: "cancel"}, nil
	case v == "!decline":
		return &sdk.ElicitResult{Action: "decline"}, nil
	case strings.HasPrefix(v, "say:"):
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"instruction": strings.TrimPrefix(v, "say:")}}, nil
	default:
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"choice": v}}, nil
	}
}

func (w *world) onSample(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	w.mu.Lock()
	w.sampled++
	w.mu.Unlock()
	return &sdk.CreateMessageResult{Content: &sdk.TextContent{Text: w.model(r.Params)}, Model: "scripted", Role: "assistant"}, nil
}

// call invokes a tool; a tool error comes back as text.
func (w *world) call(name string, args map[string]any) (json.RawMessage, string) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	params := &sdk.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken("e2e")
	res, err := w.session.CallTool(ctx, params)
	require.NoError(w.t, err, "protocol error on %s; server stderr:\n%s", name, w.stderr.String())
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return nil, b.String()
	}
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(w.t, err)
	w.mu.Lock()
	w.outputs = append(w.outputs, string(raw))
	w.mu.Unlock()
	return raw, ""
}

func (w *world) start() contract.StartOutput {
	w.t.Helper()
	raw, errText := w.call("pr_monitor_start", map[string]any{"pr": "https://github.com/acme/widgets/pull/7"})
	require.Empty(w.t, errText)
	var out contract.StartOutput
	require.NoError(w.t, json.Unmarshal(raw, &out))
	return out
}

func (w *world) next(event, choice string, data map[string]any) contract.ActionOutput {
	w.t.Helper()
	args := map[string]any{"monitor_id": "acme/widgets#7", "event": event}
	if choice != "" {
		args["choice"] = choice
	}
	if data != nil {
		args["data"] = data
	}
	raw, errText := w.call("pr_monitor_next_step", args)
	require.Empty(w.t, errText, "next_step(%s, %s)", event, choice)
	var out contract.ActionOutput
	require.NoError(w.t, json.Unmarshal(raw, &out))
	return out
}

func (w *world) apply(events ...githubfake.Event) {
	w.t.Helper()
	require.NoError(w.t, w.fake.Apply(githubfake.Ref(w.ref), events...))
}

// askedIDs lists the ids of the questions elicited so far.
func (w *world) askedIDs() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, q := range w.elicited {
		out = append(out, "elicited "+q.ID)
	}
	return out
}

// syncBuffer is the server's stderr: written by exec's copier, read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func callParams(name string, args map[string]any) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: name, Arguments: args}
}

func githubfakeRef(owner, repo string, n int) prstatus.PRRef {
	return prstatus.PRRef{Owner: owner, Repo: repo, Number: n}
}

// elicitedSnapshot is a copy of the questions elicited so far.
func (w *world) elicitedSnapshot() []question {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]question(nil), w.elicited...)
}
