package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
	"github.com/prmonitor/prmonitor/mcpserver/team/worker"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/statemachine"
)

var workerCommand = command{
	name:     "worker",
	synopsis: "worker --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--github-url URL] [--webhook-listen ADDR --webhook-secret-file FILE] [flags]",
	about: "Run the team deployment's worker: one Temporal workflow per monitored pull request, GitHub reads and writes as\n" +
		"activities, and with --webhook-listen the POST /webhook receiver that signals them (docs/deploy.md). The token\n" +
		"comes from GITHUB_TOKEN (or GH_TOKEN, or 'gh auth token'), or from a GitHub App installation (--app-id,\n" +
		"--app-private-key, --app-installation); it stays in this process, never in a workflow's arguments or history.",
}

// runWorker runs the worker until the process is interrupted.
func runWorker(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var g githubFlags
	g.register(fs)
	var tf temporalFlags
	tf.register(fs, monitorwf.DefaultTaskQueue)
	listen := fs.String("webhook-listen", "", "serve POST /webhook (and GET /healthz) on this `ADDR`, e.g. :8080")
	secretFile := fs.String("webhook-secret-file", "", "the webhook's shared secret, in this `FILE` (surrounding whitespace is not part of it)")
	appID := fs.Int64("app-id", 0, "act as this GitHub App (`ID`) instead of GITHUB_TOKEN")
	appKey := fs.String("app-private-key", "", "the GitHub App's private key, a PEM `FILE`")
	appInst := fs.Int64("app-installation", 0, "the GitHub App's installation `ID`")
	perSecond := fs.Float64("activities-per-second", 0, "pace GitHub activities on the task queue (`N` per second, 0: unpaced)")
	var budget budgetFlag
	fs.Var(&budget, "budget", "share of the token's hourly GraphQL points the activities may spend: `SHARE` as 25% or 0.25 (default 25%)")
	mergeMethod := fs.String("merge-method", "squash", "the `METHOD` of a merge the user chooses: merge, squash or rebase")
	adminMerge := fs.Bool("allow-admin-merge", false, "after a branch-policy refusal, offer merging with administrator bypass")
	reviewBots := reviewBotsFlag(fs)
	pos, code, ok := parseFlags(fs, workerCommand, args, e)
	if !ok {
		return code
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(e.Stderr, "prmonitor worker: %s (see 'prmonitor worker --help')\n", msg)
		return exitUsage
	}
	switch {
	case len(pos) > 0:
		return usageErr(fmt.Sprintf("unexpected argument %q", sanitize.Line(pos[0])))
	case tf.check() != "":
		return usageErr(tf.check())
	case (*listen == "") != (*secretFile == ""):
		return usageErr("--webhook-listen and --webhook-secret-file go together")
	case *appID != 0 && (*appKey == "" || *appInst == 0), *appID == 0 && (*appKey != "" || *appInst != 0):
		return usageErr("a GitHub App needs --app-id, --app-private-key and --app-installation")
	}
	switch *mergeMethod {
	case "merge", "squash", "rebase":
	default:
		return usageErr(fmt.Sprintf("--merge-method must be merge, squash or rebase, not %q", *mergeMethod))
	}
	level := slog.LevelInfo
	if g.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: level}))
	var secret []byte
	if *secretFile != "" {
		b, err := os.ReadFile(*secretFile)
		if err != nil {
			fmt.Fprintf(e.Stderr, "prmonitor worker: the webhook secret: %s\n", sanitize.Line(err.Error()))
			return exitUsage
		}
		secret = bytes.TrimSpace(b) // a file written by echo ends in a newline; GitHub's secret does not
	}
	temporalTLS, apiKey, err := tf.auth()
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", sanitize.Line(err.Error()))
		return exitUsage
	}
	sec := &secrets{}
	sec.add(apiKey)
	gh, err := workerGitHub(ctx, g, e, sec, logger, *appID, *appInst, *appKey)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return exitCode(err)
	}
	machine := statemachine.DefaultConfig()
	machine.MergeMethod, machine.AllowAdminMerge = *mergeMethod, *adminMerge
	err = worker.Run(ctx, worker.Config{
		Temporal: tf.hostPort, Namespace: tf.namespace, TaskQueue: tf.queue, TemporalTLS: temporalTLS, TemporalAPIKey: apiKey, GitHub: gh,
		Machine: machine, Policy: prstatus.ReviewerPolicy{Bots: parseReviewBots(*reviewBots)},
		ActivitiesPerSecond: *perSecond, Budget: budget.share(), WebhookListen: *listen, WebhookSecret: secret, Logger: logger,
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(e.Stderr, "prmonitor worker: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return exitFailure
	}
	return exitOK
}

// workerGitHub is the worker's GitHub: the token from the environment, resolved now so a missing
// one fails at start, or a GitHub App installation whose tokens are renewed as they expire. Both
// share one rate-limit gate.
func workerGitHub(ctx context.Context, g githubFlags, e env, sec *secrets, logger *slog.Logger, appID, inst int64, keyFile string) (worker.GitHub, error) {
	gate := ghclient.NewGate(nil, e.Now, logger)
	if appID == 0 {
		c, err := g.clientWith(ctx, e, sec, ghclient.DefaultRetryPolicy(), logger, gate)
		if err != nil {
			return nil, err
		}
		return worker.Static(c), nil
	}
	ep, err := ghclient.ResolveEndpoints(e.Getenv, g.url)
	if err != nil {
		return nil, err
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, fmt.Errorf("the GitHub App's private key: %w", err)
	}
	return worker.App{AppID: appID, InstallationID: inst, PrivateKey: key, RESTURL: ep.REST, Transport: e.Transport,
		NewClient: func(tok ghclient.Token) (*ghclient.Client, error) {
			return ghclient.New(ghclient.Config{RESTURL: ep.REST, GraphQLURL: ep.GraphQL, Token: tok, Transport: e.Transport,
				Version: version, Retry: ghclient.DefaultRetryPolicy(), Now: e.Now, Sleep: e.Sleep, Logger: logger, Gate: gate})
		}}.GitHub()
}
