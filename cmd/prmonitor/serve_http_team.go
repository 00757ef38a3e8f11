//go:build team

package main

import (
	"context"
	"errors"
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
	fr, err := front.New(front.Config{Client: c, Namespace: t.temporal.namespace, TaskQueue: t.temporal.queue, Users: users, NoRelayedMerge: t.noRelayedMerge,
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
