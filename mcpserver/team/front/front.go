package front

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/board"
	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
	"github.com/prmonitor/prmonitor/mcpserver/team/ops"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Config configures the front end.
type Config struct {
	// Client reaches Temporal; Namespace and TaskQueue are the workers'.
	Client    client.Client
	Namespace string
	TaskQueue string
	// Users are the tokens file's (nil when everyone signs in with GitHub).
	Users *Users
	// OAuth, when set, lets people sign in with GitHub (package oauth); its BoardSignedIn is the
	// front end's own, its Key and Ledger default to AuthKey and Ledger, and its Now and Logger to
	// the front end's.
	OAuth *oauth.Config
	// AuthKey is the deployment's auth key, the same on every replica (serve --http
	// --auth-key-file): the sign-in's sealed values and the board's cookies and questions' request
	// states are made with it, so any replica reads what another issued. Required with OAuth;
	// without it the board's cookies use a key drawn at start (one replica, or sticky routing).
	AuthKey []byte
	// Ledger records what every replica must agree on: codes used, refresh tokens rotated,
	// sign-ins revoked, board sessions signed out. Nil: the ledger's Temporal workflow
	// (authledger.Temporal), which this front end runs on its own task queue.
	Ledger oauth.Ledger
	// Machine and Policy shape the monitors this front end starts (a running monitor keeps its own).
	Machine statemachine.Config
	Policy  prstatus.ReviewerPolicy
	Version string
	// StartWait bounds how long pr_monitor_start waits for a new monitor's first read (default 30 s).
	StartWait time.Duration
	// SessionTTL is how long a board sign-in lasts (default 12 h).
	SessionTTL time.Duration
	// BoardEvery is how often an open board's view is read again (default 3 s).
	BoardEvery time.Duration
	// ProgressEvery is how often a waiting call sends progress, when the client asked (default 5 s).
	ProgressEvery time.Duration
	// BehindTLSProxy: a proxy in front terminates TLS (serve --http --behind-tls-proxy), so its
	// X-Forwarded-Proto: https says the browser's connection was HTTPS. Without it the header is
	// ignored: anyone could send it, and only the connection's own TLS counts.
	BehindTLSProxy bool
	// Origins are the Host names and web origins the front end answers to (loopback by default);
	// anything else is 403 before it is read.
	Origins httpguard.Origins
	// MaxBody caps a request's body at /mcp (DefaultMaxBody when zero); MaxInFlight the bytes of
	// all bodies being read or served at once (DefaultMaxInFlight when zero).
	MaxBody, MaxInFlight int64
	// NoRelayedMerge: a choice that merges is taken only from the user's own pick in a form, never
	// relayed by an agent, even for a question a host could not show (serve --http
	// --no-relayed-merge).
	NoRelayedMerge bool
	Now            func() time.Time
	Logger         *slog.Logger
}

// Body limits at /mcp. A JSON-RPC message of this contract is small: a tool call's arguments
// (a pull request, a monitor id, an event, a choice, a short reply), a form's answer, the client's
// capabilities, each a few kilobytes. 1 MiB is over a hundred times the largest, and a body is
// read whole before it is parsed: the cap is what one request may cost. The in-flight budget is
// spent before the bearer token is checked.
const (
	DefaultMaxBody     = 1 << 20
	DefaultMaxInFlight = 32 << 20
	// waitForRoom is how long a request waits for in-flight room before it is answered 503.
	waitForRoom = 5 * time.Second
)

func (c *Config) defaults() error {
	switch {
	case c.Client == nil:
		return errors.New("front: no Temporal client")
	case c.Users == nil && c.OAuth == nil:
		return errors.New("front: no users: a tokens file, sign-in with GitHub, or both")
	case c.OAuth != nil && len(c.OAuth.Key) == 0 && len(c.AuthKey) < oauth.MinKey:
		return fmt.Errorf("front: sign-in with GitHub needs the deployment's auth key (at least %d bytes, the same on every replica)", oauth.MinKey)
	case len(c.AuthKey) > 0 && len(c.AuthKey) < oauth.MinKey:
		return fmt.Errorf("front: the auth key must be at least %d bytes", oauth.MinKey)
	}
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	if c.TaskQueue == "" {
		c.TaskQueue = monitorwf.DefaultTaskQueue
	}
	if c.Machine == (statemachine.Config{}) {
		c.Machine = statemachine.DefaultConfig()
	}
	if c.StartWait <= 0 {
		c.StartWait = 30 * time.Second
	}
	if c.SessionTTL <= 0 {
		c.SessionTTL = 12 * time.Hour
	}
	if c.BoardEvery <= 0 {
		c.BoardEvery = 3 * time.Second
	}
	if c.ProgressEvery <= 0 {
		c.ProgressEvery = 5 * time.Second
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = DefaultMaxInFlight
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	return nil
}

// sessionIdle is how long an MCP session may idle before mcp-go forgets it.
const sessionIdle = time.Hour

// Front is the HTTP front end.
type Front struct {
	cfg     Config
	users   *Users
	oauth   *oauth.Server
	signer  *signer
	starter monitorwf.Starter
	mcp     *server.MCPServer
	stream  *server.StreamableHTTPServer
	board   *board.Handler
	views   *viewCache
	bodies  *httpguard.Bodies
	// sessions binds each MCP session to the user who opened it (mcpsessions.go).
	sessions *mcpSessions
	// ledger holds the board sessions signed out (and, through oauth, the sign-in's codes,
	// rotations and revocations), for every replica; ledgerWorker runs its workflow, when this
	// process does (ledger.go).
	ledger       oauth.Ledger
	ledgerWorker worker.Worker
	// draining ends when the process stops: calls end their waits (drain.go).
	draining context.Context
	drain    context.CancelFunc

	mu sync.Mutex
	// handed is, per user, the monitor whose action monitor_id=all handed out last: an answer
	// sent with monitor_id=all goes to it.
	handed map[string]string
	// asked is, per user and monitor ("user id"), the seq of the question monitor_id=all put to the
	// user last: it waits behind the others until nothing new comes.
	asked map[string]int
	// relays are the questions a host of their user could not show (it refused or failed the
	// form): the agent relays them, and its answer is the user's, merges included (contract's
	// consent rule; what a session declares about itself does not count).
	relays *contract.Relays
}

// New builds the front end.
func New(cfg Config) (*Front, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	sg, err := newSigner(cfg.Now, cfg.AuthKey)
	if err != nil {
		return nil, err
	}
	ledger, ledgerWorker, err := startLedger(cfg)
	if err != nil {
		return nil, err
	}
	f := &Front{cfg: cfg, users: cfg.Users, signer: sg, ledger: ledger, ledgerWorker: ledgerWorker, handed: map[string]string{}, asked: map[string]int{},
		relays: contract.NewRelays(contract.Policy{NoRelayedMerge: cfg.NoRelayedMerge})}
	f.draining, f.drain = context.WithCancel(context.Background())
	if cfg.OAuth != nil {
		oc := *cfg.OAuth
		oc.BoardSignedIn = f.boardSignedIn
		if len(oc.Key) == 0 {
			oc.Key = cfg.AuthKey
		}
		if oc.Ledger == nil {
			oc.Ledger = ledger
		}
		if oc.Now == nil {
			oc.Now = cfg.Now
		}
		if oc.Logger == nil {
			oc.Logger = cfg.Logger
		}
		if f.oauth, err = oauth.New(oc); err != nil {
			f.stopLedger()
			return nil, err
		}
	}
	f.starter = monitorwf.Starter{Client: cfg.Client, TaskQueue: cfg.TaskQueue, Params: func(ref prstatus.PRRef) monitorwf.Params {
		return monitorwf.NewParams(ref, cfg.Machine, cfg.Policy)
	}}
	f.mcp = server.NewMCPServer("prmonitor", cfg.Version,
		server.WithInstructions(contract.Instructions),
		server.WithToolCapabilities(false),
		server.WithPromptCapabilities(false),
		server.WithRecovery(),
		server.WithLogger(cfg.Logger),
	)
	tools, err := contract.ServerTools(contract.ToolOptions{}, f.drainable(map[string]server.ToolHandlerFunc{
		contract.ToolStart: f.handleStart, contract.ToolStartAll: f.handleStartAll, contract.ToolNextStep: f.handleNextStep,
		contract.ToolStatus: f.handleStatus, contract.ToolStop: f.handleStop,
	}))
	if err != nil {
		return nil, err
	}
	f.mcp.AddTools(tools...)
	f.mcp.AddPrompts(contract.Prompts()...)
	// Served behind the front end's own Host and Origin check and the bearer check (Handler):
	// mcp-go's loopback Host check would refuse a deployment's own name when the process listens
	// on loopback behind a proxy.
	f.sessions = newMCPSessions(cfg.Now, 2*sessionIdle)
	f.stream = server.NewStreamableHTTPServer(f.mcp,
		server.WithEndpointPath("/mcp"),
		server.WithHeartbeatInterval(15*time.Second),
		server.WithDisableLocalhostProtection(true),
		server.WithSessionIdleTTL(sessionIdle),
		server.WithSessionIdManagerResolver(f.sessions),
		server.WithStreamableHTTPLogger(cfg.Logger),
	)
	f.bodies = httpguard.NewBodies(cfg.MaxBody, cfg.MaxInFlight, waitForRoom)
	f.views = newViewCache(f, cfg.BoardEvery)
	f.board, err = board.New(board.Config{Reader: f.views, User: f.boardUser, Name: boardName, Answer: f.boardAnswer, GitHubSignIn: cfg.OAuth != nil, Every: cfg.BoardEvery, Now: cfg.Now, Logger: cfg.Logger,
		SignIn: http.HandlerFunc(f.signIn), SignOut: http.HandlerFunc(f.signOut)})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Handler serves /mcp (bearer token required), the probes (/livez, /readyz, /healthz), the board
// at / and, with sign-in by GitHub, the OAuth metadata and endpoints. Each layer of /mcp is a
// plain http.Handler wrapper, outermost first: the Host and Origin check (not on the probes,
// which a load balancer reaches by address), the body caps, the bearer token, the session's
// owner.
func (f *Front) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", f.cfg.Origins.Guard(f.bodies.Limit(f.requireUser(f.sessions.guard(f.stream)))))
	f.mountOAuth(mux)
	ops.Probes(mux, monitorwf.Health(f.cfg.Client, monitorwf.HealthWithin))
	mux.Handle("/", f.cfg.Origins.Guard(f.board))
	return mux
}

// Close ends the MCP sessions.
func (f *Front) Close(ctx context.Context) error {
	defer f.stopLedger()
	return f.stream.Shutdown(ctx)
}
