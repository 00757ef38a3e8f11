package front_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/teamtest"
	"github.com/prmonitor/prmonitor/mcpserver/team/temporaltest"
	"github.com/prmonitor/prmonitor/mcpserver/team/worker"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/statemachine"
)

const ghToken = "ghs_FRONTTESTAPPTOKEN0123456789abcdefgh"

// tokens are the users' bearer tokens; the users file holds their hashes.
var tokens = map[string]string{"alice": "alice-token-0123456789", "bob": "bob-token-0123456789"}

// authKey is the deployment's auth key in the tests: every front end of a test shares it.
var authKey = []byte("front-tests-auth-key-0123456789abcdef")

func usersFile() string { return "# users of the tests\n" + teamtest.UsersFile(tokens) }

func users(t *testing.T) *front.Users {
	u, err := front.ParseUsers(strings.NewReader(usersFile()))
	require.NoError(t, err)
	return u
}

// ref is alice's pull request.
var ref = prstatus.PRRef{Owner: "acme", Repo: "widgets", Number: 7}

// team is a real Temporal server, a worker (in this process) on the fake GitHub, and the front
// end served over HTTP.
type team struct {
	t     *testing.T
	c     client.Client
	fake  *githubfake.Fake
	url   string
	front *front.Front
	st    monitorwf.Starter
	cfg   front.Config
}

func newTeam(t *testing.T, mutate ...func(*front.Config)) *team {
	srv := temporaltest.Start(t, "")
	c := srv.Client(t)
	fake := githubfake.MustNew(githubfake.WithViewer("prmonitor-app"), githubfake.WithToken(ghToken), githubfake.WithRateLimit(1<<30))
	fake.Start()
	t.Cleanup(fake.Close)
	gh, err := ghclient.New(ghclient.Config{RESTURL: fake.URL(), Token: ghclient.NewToken(ghToken)})
	require.NoError(t, err)
	queue := "front-" + strings.ReplaceAll(t.Name(), "/", "-")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- worker.Run(ctx, worker.Config{Temporal: srv.HostPort, Namespace: srv.Namespace, TaskQueue: queue,
			GitHub: worker.Static(gh), Machine: statemachine.DefaultConfig(), Policy: prstatus.DefaultReviewerPolicy()})
	}()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
	cfg := front.Config{Client: c, Namespace: srv.Namespace, TaskQueue: queue, Users: users(t), AuthKey: authKey,
		BoardEvery: 200 * time.Millisecond, ProgressEvery: time.Second, Logger: slog.New(slog.DiscardHandler)}
	// The server listens before the front end exists: its address is the sign-in's issuer.
	var handler atomic.Pointer[http.Handler] // set once the server exists
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := handler.Load(); h != nil {
			(*h).ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	for _, m := range mutate {
		m(&cfg)
	}
	if cfg.OAuth != nil && cfg.OAuth.Issuer == "" {
		cfg.OAuth.Issuer = hs.URL
	}
	fr, err := front.New(cfg)
	require.NoError(t, err)
	routes := fr.Handler()
	handler.Store(&routes)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = fr.Close(ctx)
		hs.CloseClientConnections()
		hs.Close()
	})
	return &team{t: t, c: c, fake: fake, url: hs.URL, front: fr,
		st: monitorwf.Starter{Client: c, TaskQueue: queue}, cfg: cfg}
}

// open opens alice's pull request, green.
func (tm *team) open(r prstatus.PRRef, author string) {
	tm.t.Helper()
	require.NoError(tm.t, tm.fake.Apply(githubfake.Ref(r), githubfake.OpenPR{Title: "Add retries", Author: githubfake.User(author)},
		githubfake.ChecksQueued{Jobs: []string{"test"}}, githubfake.CheckCompleted{Name: "test", Conclusion: "SUCCESS"}))
}

// changed tells the monitor of r that GitHub changed, as a webhook delivery would.
func (tm *team) changed(r prstatus.PRRef, kind string) {
	tm.t.Helper()
	_, err := tm.st.Poke(context.Background(), r, monitorwf.Change{Kind: kind})
	require.NoError(tm.t, err)
}

// agent is one user's MCP client session over Streamable HTTP (the official go-sdk client).
type agent struct {
	t       *testing.T
	session *sdk.ClientSession
	mu      sync.Mutex
	forms   []string // the questions shown as forms
}

// agentOptions shape a client: its protocol era and, when answer is set, form elicitation
// answered by it (a nil answer fails the form: the host could not show it).
type agentOptions struct {
	protocol string
	answer   func(q *sdk.ElicitParams) *sdk.ElicitResult
}

func (tm *team) agent(user string, o agentOptions) *agent {
	tm.t.Helper()
	return tm.agentAt(tm.url, tokens[user], o)
}

// agentAt is an agent of the front end at base, with bearer token.
func (tm *team) agentAt(base, token string, o agentOptions) *agent {
	tm.t.Helper()
	a := &agent{t: tm.t}
	opts := &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}}
	if o.answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			a.mu.Lock()
			a.forms = append(a.forms, req.Params.Message)
			a.mu.Unlock()
			if res := o.answer(req.Params); res != nil {
				return res, nil
			}
			return nil, errors.New("this host cannot show the form")
		}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: teamtest.HTTPClient(token)}
	s, err := c.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: o.protocol})
	require.NoError(tm.t, err)
	tm.t.Cleanup(func() { _ = s.Close() })
	a.session = s
	return a
}

// result is a tool result: its structured content, and whether it is an error (then text says why).
type result struct {
	out     map[string]any
	isError bool
	text    string
}

func (a *agent) call(name string, args map[string]any) result {
	a.t.Helper()
	return a.result(name, <-a.callLater(name, args))
}

// callLater calls a tool in the background (teamtest.CallLater).
func (a *agent) callLater(name string, args map[string]any) <-chan teamtest.Answer {
	return teamtest.CallLater(a.session, name, args)
}

// result is a call's answer; a protocol error fails the test.
func (a *agent) result(name string, got teamtest.Answer) result {
	a.t.Helper()
	require.NoError(a.t, got.Err, "%s: a protocol error", name)
	res := got.Result
	var r result
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			r.text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &r.out)
	}
	return r
}

func (r result) str(key string) string { s, _ := r.out[key].(string); return s }

func (a *agent) formCount() int { a.mu.Lock(); defer a.mu.Unlock(); return len(a.forms) }
