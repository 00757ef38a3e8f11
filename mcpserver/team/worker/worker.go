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

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
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
	// Listening, when set, is told the webhook's address once it accepts connections.
	Listening func(addr string)
	Logger    *slog.Logger
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
		ConnectionOptions: client.ConnectionOptions{TLS: cfg.TemporalTLS}}
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
	if err := spend.seed(ctx, cfg.GitHub); err != nil {
		cfg.Logger.Warn("could not read the token's rate limit; the budget counts from the first answer", "err", err)
	}
	if cfg.Effects == nil {
		cfg.Effects = gitHubWork{gh: cfg.GitHub, now: time.Now, budget: spend}
	}
	w := sdkworker.New(c, cfg.TaskQueue, sdkworker.Options{TaskQueueActivitiesPerSecond: cfg.ActivitiesPerSecond})
	monitorwf.RegisterWorkflows(w)
	src := source{gh: cfg.GitHub, budget: spend}
	(&monitorwf.Activities{Source: src, Effects: cfg.Effects, Search: src}).Register(w)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	defer w.Stop()
	cfg.Logger.Info("worker running", "temporal", cfg.Temporal, "namespace", cfg.Namespace, "task_queue", cfg.TaskQueue)

	if cfg.WebhookListen == "" {
		<-ctx.Done()
		return nil
	}
	return serveWebhook(ctx, cfg, c)
}

// serveWebhook serves POST /webhook and GET /healthz until ctx ends.
func serveWebhook(ctx context.Context, cfg Config, c client.Client) error {
	starter := monitorwf.Starter{Client: c, TaskQueue: cfg.TaskQueue, Params: func(ref prstatus.PRRef) monitorwf.Params {
		return monitorwf.NewParams(ref, cfg.Machine, cfg.Policy)
	}}
	hook, err := webhook.New(webhook.Config{Secret: cfg.WebhookSecret, Monitors: starter, Pulls: pullsForCommit(cfg.GitHub), Logger: cfg.Logger})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/webhook", hook)
	mux.HandleFunc("GET /healthz", monitorwf.Health(c, monitorwf.HealthWithin))
	ln, err := net.Listen("tcp", cfg.WebhookListen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.WebhookListen, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, WriteTimeout: time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	cfg.Logger.Info("webhook listening", "addr", ln.Addr().String())
	if cfg.Listening != nil {
		cfg.Listening(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return fmt.Errorf("webhook server: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}
