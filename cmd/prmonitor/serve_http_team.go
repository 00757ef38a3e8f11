//go:build team

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/prmonitor/prmonitor/mcpserver/team/front"
	"github.com/prmonitor/prmonitor/mcpserver/team/httpguard"
	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/oauth"
	"github.com/prmonitor/prmonitor/mcpserver/team/ops"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/statemachine"
)

// allowList is the front end's Host and Origin allow-list.
func (t *teamServe) allowList() httpguard.Origins {
	return httpguard.Origins{Hosts: splitList(t.listen.hosts), Origins: splitList(t.origins)}
}

// runServeHTTP serves the front end until ctx ends.
func runServeHTTP(ctx context.Context, t *teamServe, machine statemachine.Config, bots []string, e env, logger *slog.Logger) int {
	fail := func(code int, err error) int {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sanitize.Line(err.Error()))
		return code
	}
	if msg := t.listen.rule("--http", t.addr); msg != "" {
		return fail(exitUsage, errors.New(msg))
	}
	var users *front.Users
	if t.tokens != "" {
		u, err := front.LoadUsers(t.tokens)
		if err != nil {
			return fail(exitUsage, err)
		}
		users = u
	}
	signIn, err := t.signIn.oauthConfig()
	if err != nil {
		return fail(exitUsage, err)
	}
	authKey, err := readAuthKey(t.authKey)
	if err != nil {
		return fail(exitUsage, err)
	}
	serving, err := t.listen.serving() // read before anything is dialled: a bad pair is a usage error
	if err != nil {
		return fail(exitUsage, err)
	}
	tlsCfg, apiKey, err := t.temporal.auth()
	if err != nil {
		return fail(exitUsage, err)
	}
	opts := clientOptions(t.temporal.hostPort, t.temporal.namespace, tlsCfg, apiKey)
	opts.Logger = sdklog.NewStructuredLogger(logger)
	metrics := ops.New()
	opts.MetricsHandler = metrics.TemporalHandler()
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
	ln, err := net.Listen("tcp", t.addr)
	if err != nil {
		return fail(exitFailure, fmt.Errorf("listen on %s: %w", t.addr, err))
	}
	defer ln.Close()
	listening(signIn, ln.Addr().String())
	fr, err := front.New(front.Config{Client: c, Namespace: t.temporal.namespace, TaskQueue: t.temporal.queue, Users: users,
		OAuth: signIn, AuthKey: authKey, BehindTLSProxy: t.listen.behindProxy, NoRelayedMerge: t.noRelayedMerge, Machine: machine, Policy: policy, Version: version, Origins: t.allowList(), Logger: logger})
	if err != nil {
		return fail(exitFailure, err)
	}
	metrics.Registry().MustRegister(ops.NewMonitorCounts(ops.VisibilityCount(c, t.temporal.namespace), monitorCountEvery, time.Now, logger))
	// No write timeout: a next_step call waits as long as the client's host allows (docs/hosts.md).
	srv := &http.Server{Handler: metrics.Requests(fr.Handler()), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	srv.TLSConfig = serving
	served := ln
	if serving != nil {
		served = tls.NewListener(ln, serving)
	}
	servers := []func(context.Context) error{func(ctx context.Context) error { return ops.Serve(ctx, srv, served, ops.DefaultDrain) }}
	if t.metrics != "" {
		mln, err := net.Listen("tcp", t.metrics)
		if err != nil {
			return fail(exitFailure, fmt.Errorf("listen on %s: %w", t.metrics, err))
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics.Handler())
		ops.Probes(mux, monitorwf.Health(c, monitorwf.HealthWithin))
		msrv := &http.Server{Handler: metrics.Requests(mux), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
		servers = append(servers, func(ctx context.Context) error { return ops.Serve(ctx, msrv, mln, ops.DefaultDrain) })
		logger.Info("metrics listening", "addr", mln.Addr().String())
	}
	logger.Info("prmonitor HTTP front end listening", "addr", ln.Addr().String(), "tls", serving != nil, "version", version,
		"temporal", t.temporal.hostPort, "namespace", t.temporal.namespace, "task_queue", t.temporal.queue)
	// Each server drains (ops.Serve) when ctx ends: the calls in flight finish, a waiting one
	// answers as its wait's end would; then the MCP sessions end.
	stopWaits := context.AfterFunc(ctx, fr.Drain) // waiting calls answer while the server still stands
	defer stopWaits()
	err = ops.RunAll(ctx, servers...)
	closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = fr.Close(closing)
	if err != nil {
		return fail(exitFailure, err)
	}
	return exitOK
}

// monitorCountEvery is how often the front end counts the monitors again for a scrape.
const monitorCountEvery = 30 * time.Second

// readAuthKey reads --auth-key-file (nil when not given): its content, trimmed, at least
// oauth.MinKey bytes.
func readAuthKey(path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--auth-key-file: %w", err)
	}
	key := bytes.TrimSpace(raw)
	if len(key) < oauth.MinKey {
		return nil, fmt.Errorf("--auth-key-file %s: the key must be at least %d bytes (openssl rand -hex 32 > %s)", path, oauth.MinKey, path)
	}
	return key, nil
}
