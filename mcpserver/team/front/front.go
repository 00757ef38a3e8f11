package front

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/mcpserver/team/board"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Config configures the front end.
type Config struct {
	// Client reaches Temporal; Namespace and TaskQueue are the workers'.
	Client    client.Client
	Namespace string
	TaskQueue string
	Users     *Users
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
	// NoRelayedMerge: a choice that merges is taken only from the user's own pick in a form, never
	// relayed by an agent, even for a question a host could not show (serve --http
	// --no-relayed-merge).
	NoRelayedMerge bool
	Now            func() time.Time
	Logger         *slog.Logger
}

func (c *Config) defaults() error {
	switch {
	case c.Client == nil:
		return errors.New("front: no Temporal client")
	case c.Users == nil:
		return errors.New("front: no users")
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
	signer  *signer
	starter monitorwf.Starter
	mcp     *server.MCPServer
	stream  *server.StreamableHTTPServer
	board   *board.Handler
	views   *viewCache
	// sessions binds each MCP session to the user who opened it (mcpsessions.go).
	sessions *mcpSessions

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
	sg, err := newSigner(cfg.Now)
	if err != nil {
		return nil, err
	}
	f := &Front{cfg: cfg, users: cfg.Users, signer: sg, handed: map[string]string{}, asked: map[string]int{},
		relays: contract.NewRelays(contract.Policy{NoRelayedMerge: cfg.NoRelayedMerge})}
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
	tools, err := contract.ServerTools(contract.ToolOptions{}, map[string]server.ToolHandlerFunc{
		contract.ToolStart: f.handleStart, contract.ToolStartAll: f.handleStartAll, contract.ToolNextStep: f.handleNextStep,
		contract.ToolStatus: f.handleStatus, contract.ToolStop: f.handleStop,
	})
	if err != nil {
		return nil, err
	}
	f.mcp.AddTools(tools...)
	f.mcp.AddPrompts(contract.Prompts()...)
	// Served behind the bearer check (Handler), which is also what keeps a web page elsewhere from
	// driving it through a browser: mcp-go's loopback Host check would refuse a deployment's own
	// name when the process listens on loopback behind a proxy.
	f.sessions = newMCPSessions(cfg.Now, 2*sessionIdle)
	f.stream = server.NewStreamableHTTPServer(f.mcp,
		server.WithEndpointPath("/mcp"),
		server.WithHeartbeatInterval(15*time.Second),
		server.WithDisableLocalhostProtection(true),
		server.WithSessionIdleTTL(sessionIdle),
		server.WithSessionIdManagerResolver(f.sessions),
		server.WithStreamableHTTPLogger(cfg.Logger),
	)
	f.views = newViewCache(f, cfg.BoardEvery)
	f.board, err = board.New(board.Config{Reader: f.views, User: f.boardUser, Every: cfg.BoardEvery, Logger: cfg.Logger,
		SignIn: http.HandlerFunc(f.signIn), SignOut: http.HandlerFunc(f.signOut)})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Handler serves /mcp (bearer token required), /healthz and the board at /.
func (f *Front) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", f.users.requireBearer(f.sessions.guard(f.stream)))
	mux.HandleFunc("GET /healthz", monitorwf.Health(f.cfg.Client, monitorwf.HealthWithin))
	mux.Handle("/", f.board)
	return mux
}

// Close ends the MCP sessions.
func (f *Front) Close(ctx context.Context) error { return f.stream.Shutdown(ctx) }
