package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/statemachine"
)

// serve --http: the team deployment's front end (docs/deploy.md). The same tools over MCP's
// Streamable HTTP at /mcp, each user by their bearer token, the monitors on Temporal; the board at
// /; /healthz. It reads no GitHub and holds no token of GitHub's: the workers do.

// teamServe are serve's flags for --http.
type teamServe struct {
	addr, tokens string
	temporal     temporalFlags
}

// registerTeamServe adds --http, --auth-tokens and the Temporal flags to serve's.
func registerTeamServe(fs *flag.FlagSet) *teamServe {
	t := &teamServe{}
	fs.StringVar(&t.addr, "http", "", "serve MCP over Streamable HTTP at /mcp on `ADDR` (the team deployment: needs --temporal and --auth-tokens; docs/deploy.md)")
	fs.StringVar(&t.tokens, "auth-tokens", "", "with --http: the users, one line each: USER SHA256HEX (the hex SHA-256 of the user's bearer token) (`FILE`)")
	t.temporal.register(fs, monitorwf.DefaultTaskQueue)
	return t
}

// stdioOnly are serve's flags that mean nothing with --http (the monitors live in Temporal, the
// workers read GitHub, and the embedded server's pushes and notifications are its own).
var stdioOnly = []string{"state-dir", "github-url", "budget", "poll-busy", "poll-quiet", "poll-other", "dispatch",
	"quiet-hours", "quiet-weekends", "quiet-tz", "max-block", "progress-every", "checks-grace", "push", "push-grace", "notify"}

// checkTeam is the usage error of serve's flags as --http (or its absence) sees them ("" when none).
func (t *teamServe) check(fs *flag.FlagSet) string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if t.addr == "" {
		for _, name := range []string{"auth-tokens", "temporal", "namespace", "task-queue", "temporal-tls-cert", "temporal-tls-key", "temporal-api-key-file"} {
			if set[name] {
				return "--" + name + " goes with --http"
			}
		}
		return ""
	}
	for _, name := range stdioOnly {
		if set[name] {
			return "--" + name + " has no effect with --http (it is the embedded server's; the workers read GitHub: docs/deploy.md)"
		}
	}
	switch {
	case t.temporal.check() != "":
		return t.temporal.check() + " with --http"
	case t.tokens == "":
		return "--http needs --auth-tokens FILE: without it anyone who reaches the address could drive the monitors"
	}
	return ""
}

// runServeHTTP serves the front end until ctx ends.
func runServeHTTP(ctx context.Context, t *teamServe, machine statemachine.Config, bots []string, e env, logger *slog.Logger) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sanitize.Line(err.Error()))
		return code
	}
	users, err := front.LoadUsers(t.tokens)
	if err != nil {
		return fail(exitUsage, err)
	}
	tlsCfg, apiKey, err := t.temporal.auth()
	if err != nil {
		return fail(exitUsage, err)
	}
	opts := clientOptions(t.temporal.hostPort, t.temporal.namespace, tlsCfg, apiKey)
	opts.Logger = sdklog.NewStructuredLogger(logger)
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return fail(exitFailure, fmt.Errorf("connect to Temporal at %s: %w", t.temporal.hostPort, err))
	}
	defer c.Close()
	if err := monitorwf.CheckSearchAttributes(ctx, c, t.temporal.namespace); err != nil {
		return fail(exitFailure, err)
	}
	policy := prstatus.DefaultReviewerPolicy()
	if bots != nil {
		policy = prstatus.ReviewerPolicy{Bots: slices.Clone(bots)}
	}
	fr, err := front.New(front.Config{Client: c, Namespace: t.temporal.namespace, TaskQueue: t.temporal.queue, Users: users,
		Machine: machine, Policy: policy, Version: version, Logger: logger})
	if err != nil {
		return fail(exitFailure, err)
	}
	ln, err := net.Listen("tcp", t.addr)
	if err != nil {
		return fail(exitFailure, fmt.Errorf("listen on %s: %w", t.addr, err))
	}
	// No write timeout: a next_step call waits as long as the client's host allows (docs/hosts.md).
	srv := &http.Server{Handler: fr.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	logger.Info("prmonitor HTTP front end listening", "addr", ln.Addr().String(), "version", version,
		"temporal", t.temporal.hostPort, "namespace", t.temporal.namespace, "task_queue", t.temporal.queue)
	select {
	case err := <-errc:
		return fail(exitFailure, fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = fr.Close(shutdown)
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fail(exitFailure, err)
	}
	return exitOK
}
