// Package worker runs the team deployment's worker (prmonitor worker): the monitors' workflows
// and their GitHub activities against a Temporal frontend, and, when asked, the webhook receiver
// that signals them (docs/deploy.md, docs/decisions/0002-temporal-past-one-machine.md).
package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/ops"
	"github.com/prmonitor/prmonitor/mcpserver/team/webhook"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Config is a worker's configuration.
type Config struct {
	// Temporal is the frontend's HOST:PORT; Namespace and TaskQueue default to "default" and
	// monitorwf.DefaultTaskQueue.
	Temporal, Namespace, TaskQueue string
	// TemporalTLS secures the connection (a client certificate for mTLS, as self-hosted clusters
	// and Temporal Cloud accept); TemporalAPIKey authenticates with an API key (Temporal Cloud),
	// which turns TLS on. Both may be empty (a local or sidecar frontend).
	TemporalTLS    *tls.Config
	TemporalAPIKey string
	// GitHub is the client the activities use, resolved per call (a GitHub App's installation
	// token is renewed before it expires). The token stays in the worker's process.
	GitHub GitHub
	// Effects performs server-side GitHub work; nil means the effects package (mcpserver/effects)
	// over GitHub, as the embedded server does it.
	Effects monitorwf.Effects
	// Machine and Policy are new monitors' decisions (a running monitor keeps its own).
	Machine statemachine.Config
	Policy  prstatus.ReviewerPolicy
	// ActivitiesPerSecond paces this worker's GitHub activities on the task queue (0: unpaced).
	ActivitiesPerSecond float64
	// Budget is the share of the token's hourly GraphQL points the activities may spend (0: no
	// limit but GitHub's); see budget.go.
	Budget float64
	// WebhookListen, when set, serves POST /webhook (and GET /healthz) there, verified with
	// WebhookSecret.
	WebhookListen string
	WebhookSecret []byte
	// WebhookHosts are the Host names /webhook answers to (httpguard; loopback names when empty):
	// a delivery addressed to any other name is 403 before it is read.
	WebhookHosts httpguard.Origins
	// WebhookTLS, when set, serves the webhook over HTTPS. Without it the address must be a
	// loopback one or sit behind a TLS proxy (httpguard.CheckListen, checked by the command).
	WebhookTLS *tls.Config
	// Listening, when set, is told the webhook's address once it accepts connections.
	Listening func(addr string)
	// Metrics is the worker's registry (ops.New): Temporal's SDK metrics, the webhook's deliveries,
	// GitHub's points by TokenID, activity attempts. MetricsListen, when set, serves it at
	// /metrics there, with /livez and /readyz; nil Metrics records nothing.
	Metrics       *ops.Metrics
	MetricsListen string
	// TokenID names the token in the metrics: a short id that is not the token (ghclient.Token's
	// ShortID, or the App's installation).
	TokenID string
	// StopTimeout is how long the activities in flight get to finish when the worker stops
	// (default 30 s); Drain bounds the webhook's and the metrics' listeners (ops.DefaultDrain).
	StopTimeout time.Duration
	Drain       ops.Drain
	Logger      *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Namespace == "" {
		c.Namespace = "default"
	}
	if c.TaskQueue == "" {
		c.TaskQueue = monitorwf.DefaultTaskQueue
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = 30 * time.Second
	}
	if c.Drain == (ops.Drain{}) {
		c.Drain = ops.DefaultDrain
	}
	if c.TokenID == "" {
		c.TokenID = "token"
	}
	return c
}

// Run runs the worker until ctx ends.
func Run(ctx context.Context, cfg Config) error {
	cfg = cfg.withDefaults()
	if cfg.Temporal == "" {
		return errors.New("no Temporal frontend: pass --temporal HOST:PORT")
	}
	if cfg.GitHub == nil {
		return errors.New("no GitHub access configured")
	}
	if cfg.WebhookListen != "" && len(cfg.WebhookSecret) == 0 {
		return errors.New("--webhook-listen needs --webhook-secret-file")
	}
	opts := client.Options{HostPort: cfg.Temporal, Namespace: cfg.Namespace, Logger: sdklog.NewStructuredLogger(cfg.Logger),
		ConnectionOptions: client.ConnectionOptions{TLS: cfg.TemporalTLS}, MetricsHandler: cfg.Metrics.TemporalHandler()}
	if cfg.TemporalAPIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.TemporalAPIKey)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return fmt.Errorf("connect to Temporal at %s: %w", cfg.Temporal, err)
	}
	defer c.Close()

	if err := monitorwf.CheckSearchAttributes(ctx, c, cfg.Namespace); err != nil {
		return err
	}
	spend := newBudget(cfg.Budget, time.Now)
	spend.meter = func(cost int, rl prstatus.RateLimit) { cfg.Metrics.Points(cfg.TokenID, cost, rl.Remaining, rl.Limit) }
	if err := spend.seed(ctx, cfg.GitHub); err != nil {
		cfg.Logger.Warn("could not read the token's rate limit; the budget counts from the first answer", "err", err)
	}
	if cfg.Effects == nil {
		cfg.Effects = gitHubWork{gh: cfg.GitHub, now: time.Now, budget: spend}
	}
	wopts := sdkworker.Options{TaskQueueActivitiesPerSecond: cfg.ActivitiesPerSecond, WorkerStopTimeout: cfg.StopTimeout}
	if cfg.Metrics != nil {
		wopts.Interceptors = append(wopts.Interceptors, cfg.Metrics.ActivityInterceptor())
	}
	w := sdkworker.New(c, cfg.TaskQueue, wopts)
	monitorwf.RegisterWorkflows(w)
	src := source{gh: cfg.GitHub, budget: spend}
	(&monitorwf.Activities{Source: src, Effects: cfg.Effects, Search: src}).Register(w)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	// Stopped last: the listeners drain first, so a delivery in flight still finds the worker
	// and the client; then the activities in flight get StopTimeout to finish.
	defer w.Stop()
	cfg.Logger.Info("worker running", "temporal", cfg.Temporal, "namespace", cfg.Namespace, "task_queue", cfg.TaskQueue)
	return serveHTTP(ctx, cfg, c)
}

// serveHTTP serves the webhook's and the metrics' listeners that are configured until ctx ends,
// then drains them.
func serveHTTP(ctx context.Context, cfg Config, c client.Client) error {
	ready := monitorwf.Health(c, monitorwf.HealthWithin)
	var servers []func(context.Context) error
	if cfg.WebhookListen != "" {
		mux, err := webhookMux(cfg, c, ready)
		if err != nil {
			return err
		}
		srv, err := listen(cfg, "webhook", cfg.WebhookListen, mux, cfg.WebhookTLS, cfg.Listening)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
	}
	if cfg.MetricsListen != "" {
		if cfg.Metrics == nil {
			return errors.New("--metrics-listen without a metrics registry")
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", cfg.Metrics.Handler())
		ops.Probes(mux, ready)
		srv, err := listen(cfg, "metrics", cfg.MetricsListen, cfg.Metrics.Requests(mux), nil, nil)
		if err != nil {
			return err
		}
		servers = append(servers, srv)
	}
	if len(servers) == 0 {
		<-ctx.Done()
		return nil
	}
	return ops.RunAll(ctx, servers...)
}

// webhookMux serves POST /webhook and the probes.
func webhookMux(cfg Config, c client.Client, ready http.Handler) (http.Handler, error) {
	starter := monitorwf.Starter{Client: c, TaskQueue: cfg.TaskQueue, Params: func(ref prstatus.PRRef) monitorwf.Params {
		return monitorwf.NewParams(ref, cfg.Machine, cfg.Policy)
	}}
	hook, err := webhook.New(webhook.Config{Secret: cfg.WebhookSecret, Monitors: starter, Pulls: pullsForCommit(cfg.GitHub),
		Counted: cfg.Metrics.Webhook, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/webhook", cfg.WebhookHosts.Guard(hook))
	ops.Probes(mux, ready) // the probes answer any Host, as the front end's do: a load balancer probes by address
	return cfg.Metrics.Requests(mux), nil
}

// listen binds addr now (a taken port fails the start) and returns the server to run on it, over
// TLS when serving is set.
func listen(cfg Config, what, addr string, h http.Handler, serving *tls.Config, listening func(string)) (func(context.Context) error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if serving != nil {
		ln = tls.NewListener(ln, serving)
	}
	cfg.Logger.Info(what+" listening", "addr", ln.Addr().String())
	if listening != nil {
		listening(ln.Addr().String())
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	return func(ctx context.Context) error { return ops.Serve(ctx, srv, ln, cfg.Drain) }, nil
}
