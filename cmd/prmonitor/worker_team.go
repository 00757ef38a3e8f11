//go:build team

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/prmonitor/prmonitor/mcpserver/team/ops"
	"github.com/prmonitor/prmonitor/mcpserver/team/worker"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// runTeamWorker runs the worker (a team build: docs/deploy.md) until ctx ends.
func runTeamWorker(ctx context.Context, p workerParams, e env, logger *slog.Logger) int {
	var serving *tls.Config
	if p.listen != "" {
		if msg := p.hooks.rule("--webhook-listen", p.listen); msg != "" {
			fmt.Fprintf(e.Stderr, "prmonitor worker: %s (see 'prmonitor worker --help')\n", sanitize.Line(msg))
			return exitUsage
		}
		var err error
		if serving, err = p.hooks.serving(); err != nil {
			fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", sanitize.Line(err.Error()))
			return exitUsage
		}
	}
	sec := &secrets{}
	sec.add(p.apiKey)
	gh, tokenID, err := workerGitHub(ctx, p.github, e, sec, logger, p.appID, p.appInstallation, p.appKey)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return exitCode(err)
	}
	err = worker.Run(ctx, worker.Config{
		Temporal: p.temporal.hostPort, Namespace: p.temporal.namespace, TaskQueue: p.temporal.queue, TemporalTLS: p.temporalTLS,
		TemporalAPIKey: p.apiKey, GitHub: gh, Machine: p.machine, Policy: prstatus.ReviewerPolicy{Bots: p.bots},
		ActivitiesPerSecond: p.perSecond, Budget: p.budget, WebhookListen: p.listen, WebhookSecret: p.secret,
		WebhookHosts: p.hooks.allowList(), WebhookTLS: serving, Logger: logger,
		Metrics: ops.New(), MetricsListen: p.metrics, TokenID: tokenID,
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return exitFailure
	}
	return exitOK
}

// workerGitHub is the worker's GitHub: the token from the environment, resolved now so a missing
// one fails at start, or a GitHub App installation whose tokens are renewed as they expire. Both
// share one rate-limit gate. tokenID names it in the metrics: the token's short id, or the App's
// installation (whose hourly tokens share one rate limit).
func workerGitHub(ctx context.Context, g githubFlags, e env, sec *secrets, logger *slog.Logger, appID, inst int64, keyFile string) (gh worker.GitHub, tokenID string, err error) {
	gate := ghclient.NewGate(nil, e.Now, logger)
	if appID == 0 {
		c, err := g.clientWith(ctx, e, sec, ghclient.DefaultRetryPolicy(), logger, gate)
		if err != nil {
			return nil, "", err
		}
		return worker.Static(c), c.TokenID(), nil
	}
	ep, err := ghclient.ResolveEndpoints(e.Getenv, g.url)
	if err != nil {
		return nil, "", err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, "", fmt.Errorf("the GitHub App's private key: %w", err)
	}
	gh, err = worker.App{AppID: appID, InstallationID: inst, PrivateKey: key, RESTURL: ep.REST, Transport: e.Transport,
		NewClient: func(tok ghclient.Token) (*ghclient.Client, error) {
			return ghclient.New(ghclient.Config{RESTURL: ep.REST, GraphQLURL: ep.GraphQL, Token: tok, Transport: e.Transport,
				Version: version, Retry: ghclient.DefaultRetryPolicy(), Now: e.Now, Sleep: e.Sleep, Logger: logger, Gate: gate})
		}}.GitHub()
	return gh, fmt.Sprintf("app:%d/%d", appID, inst), err
}
