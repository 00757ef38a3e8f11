package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/prmonitor/prmonitor/mcpserver"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/prstatus/text"
	prwatch "github.com/prmonitor/prmonitor/prstatus/watch"
)

// The demo's pull request, its author (who is also the token's user) and the fixed token the
// simulated GitHub accepts. None of them exists on github.com.
const (
	demoOwner  = "octo-org"
	demoRepo   = "poller"
	demoNumber = 42
	demoViewer = "dev"
	demoToken  = "prmonitor-demo-token"
	// demoRateLimit is the simulated GitHub's hourly points: far above GitHub's, so the watcher's
	// budget lets it look as often as the story needs.
	demoRateLimit = 1 << 30
)

// demoSession is the whole demo world: a simulated GitHub on a loopback port, the prmonitor MCP
// server speaking stdio over in-memory pipes, and an MCP client (mcp-go's) whose elicitation and
// sampling handlers play the user and the host's model.
type demoSession struct {
	fake   *githubfake.Fake
	ref    prstatus.PRRef
	base   string
	client *client.Client
	t      *transcript
	stop   func()
	seen   int // GitHub requests already narrated
}

func startDemo(ctx context.Context, e env, t *transcript) (*demoSession, error) {
	// A rate limit far above GitHub's lets the watcher look as often as the story needs.
	fake, err := githubfake.New(githubfake.WithViewer(demoViewer), githubfake.WithToken(demoToken), githubfake.WithRateLimit(demoRateLimit))
	if err != nil {
		return nil, fmt.Errorf("start the simulated GitHub: %w", err)
	}
	d := &demoSession{fake: fake, ref: prstatus.PRRef{Owner: demoOwner, Repo: demoRepo, Number: demoNumber}, t: t}
	d.base = fake.Start()
	srv, err := mcpserver.New(mcpserver.Config{
		Version: version,
		Connect: func(context.Context) (mcpserver.GitHub, error) {
			return ghclient.New(ghclient.Config{RESTURL: d.base, Token: ghclient.NewToken(demoToken), Version: version, Retry: oneShotRetry(), Sleep: e.Sleep})
		},
		// The watcher looks as often as the story needs: the simulated limit, which it reads from
		// the first response, lets its budget allow the shortest cycle.
		Watch: prwatch.Config{MinCycle: 10 * time.Millisecond, MaxCycle: 50 * time.Millisecond, Jitter: -1,
			HotRefresh: 50 * time.Millisecond, HotWindow: time.Second},
		MaxBlock:      400 * time.Millisecond,
		ProgressEvery: time.Hour,
		Logger:        slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fake.Close()
		return nil, err
	}
	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = srv.ServeStdio(sctx, serverIn, serverOut)
		_ = serverOut.Close()
	}()
	d.client = client.NewClient(transport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))),
		client.WithElicitationHandler(demoUser{d}), client.WithSamplingHandler(demoSampler{d}))
	d.stop = func() {
		_ = d.client.Close()
		cancel()
		_ = clientOut.Close()
		<-served
		fake.Close()
	}
	if err := d.client.Start(ctx); err != nil {
		d.stop()
		return nil, fmt.Errorf("start the MCP client: %w", err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "prmonitor-demo", Version: version}
	if _, err := d.client.Initialize(ctx, init); err != nil {
		d.stop()
		return nil, fmt.Errorf("initialize the MCP session: %w", err)
	}
	return d, nil
}

func (d *demoSession) apply(events ...githubfake.Event) {
	if err := d.fake.Apply(githubfake.Ref(d.ref), events...); err != nil {
		d.t.line("!", "the simulated GitHub refused an event: %v", err)
	}
}

// call invokes a tool and decodes its structured result into out.
func (d *demoSession) call(ctx context.Context, name string, args map[string]any, out any) error {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = name, args
	res, err := d.client.CallTool(ctx, req)
	d.narrateGitHub()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return fmt.Errorf("%s: %s", name, b.String())
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// narrateGitHub prints the GitHub work the server did since the last look: every write, and every
// log it fetched. Polls are counted, not printed.
func (d *demoSession) narrateGitHub() {
	reqs := d.fake.Requests()
	for _, r := range reqs[min(d.seen, len(reqs)):] {
		if s := describeRequest(r); s != "" {
			d.t.line("github", "%s", s)
		}
	}
	d.seen = len(reqs)
}

func describeRequest(r githubfake.Request) string {
	p := r.Path
	switch {
	case r.Kind == githubfake.KindGraphQL && r.Operation == githubfake.OpMutation:
		if r.Mutation == "resolveReviewThread" {
			return "the server resolved a review thread"
		}
		return "the server ran " + r.Mutation
	case r.Method == "POST" && strings.HasSuffix(p, "/replies"):
		var b struct{ Body string }
		_ = json.Unmarshal([]byte(r.Body), &b)
		body, _, _ := strings.Cut(b.Body, "<!--")
		return fmt.Sprintf("the server posted a reply (with its hidden marker): %q", text.ClipRunes(strings.TrimSpace(body), 90))
	case r.Method == "POST" && strings.HasSuffix(p, "/requested_reviewers"):
		var b struct{ Reviewers []string }
		_ = json.Unmarshal([]byte(r.Body), &b)
		return "the server asked " + strings.Join(b.Reviewers, ", ") + " to review again"
	case r.IsMerge():
		if r.Status == 200 {
			return "the server merged the pull request (the user chose to)"
		}
		return fmt.Sprintf("the server tried to merge; GitHub answered %d", r.Status)
	case strings.HasSuffix(p, "/logs") && r.Kind == githubfake.KindREST:
		return "the server fetched a failing job's log"
	case strings.Contains(p, "/rerun"):
		return "the server re-ran failed jobs"
	}
	return ""
}

// demoUser answers elicitations as the user would.
type demoUser struct{ d *demoSession }

func (u demoUser) Elicit(_ context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.d.narrateGitHub()
	id := ""
	if m := req.Params.Meta; m != nil {
		id, _ = m.AdditionalFields["prmonitor/question"].(string)
	}
	choices := choicesOf(req.Params.RequestedSchema)
	labels := make([]string, len(choices))
	for i, c := range choices {
		labels[i] = c.Title
	}
	u.d.t.question(req.Params.Message, labels)
	v := demoAnswers[id]
	if v == "" {
		u.d.t.line("user", "dismisses the prompt")
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionCancel}}, nil
	}
	u.d.t.line("user", "chooses %q", labelOf(choices, v))
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"choice": v}}}, nil
}

// demoChoice is one choice of an elicited question: the value the server reads, the label the
// user reads.
type demoChoice struct{ Const, Title string }

func choicesOf(schema any) []demoChoice {
	raw, _ := json.Marshal(schema)
	var s struct {
		Properties struct {
			Choice struct {
				OneOf []demoChoice `json:"oneOf"`
			} `json:"choice"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	return s.Properties.Choice.OneOf
}

// labelOf is what the user read for value v: its label (the value itself when none is offered).
func labelOf(choices []demoChoice, v string) string {
	for _, c := range choices {
		if c.Const == v {
			return c.Title
		}
	}
	return v
}

// demoSampler is the host's model.
type demoSampler struct{ d *demoSession }

func (s demoSampler) CreateMessage(_ context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	s.d.narrateGitHub()
	text, said := demoModel(req)
	s.d.t.line("model", "the host's model, asked by the server: %s", said)
	return &mcp.CreateMessageResult{SamplingMessage: mcp.SamplingMessage{Role: mcp.RoleAssistant, Content: mcp.NewTextContent(text)}, Model: "demo"}, nil
}
