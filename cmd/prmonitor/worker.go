package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/statemachine"
)

var workerCommand = command{
	name:     "worker",
	synopsis: "worker --temporal HOST:PORT [--namespace NS] [--task-queue Q] [--github-url URL] [--webhook-listen ADDR --webhook-secret-file FILE] [flags]",
	about: "Run the team deployment's worker: one Temporal workflow per monitored pull request, GitHub reads and writes as\n" +
		"activities, and with --webhook-listen the POST /webhook receiver that signals them (docs/deploy.md). The token\n" +
		"comes from GITHUB_TOKEN (or GH_TOKEN, or 'gh auth token'), or from a GitHub App installation (--app-id,\n" +
		"--app-private-key, --app-installation); it stays in this process, never in a workflow's arguments or history.\n" +
		"The team commands run in the team build: go install -tags team ./cmd/prmonitor.",
}

// runWorker runs the worker until the process is interrupted.
func runWorker(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	var g githubFlags
	g.register(fs)
	var tf temporalFlags
	tf.register(fs, teamTaskQueue)
	listen := fs.String("webhook-listen", "", "serve POST /webhook (and GET /healthz) on this `ADDR`, e.g. 127.0.0.1:8080; "+
		"off loopback it needs --tls-cert and --tls-key, or --behind-tls-proxy, and --allowed-hosts")
	var hooks listenFlags
	fs.StringVar(&hooks.hosts, "allowed-hosts", "", "with --webhook-listen: the host `NAMES` GitHub posts to, comma-separated (a NAME:PORT matches that port only); "+
		"a delivery to any other Host is refused (default: localhost, 127.0.0.1, ::1)")
	fs.StringVar(&hooks.tlsCert, "tls-cert", "", "with --webhook-listen: serve HTTPS with this certificate chain (`FILE`, PEM); needs --tls-key")
	fs.StringVar(&hooks.tlsKey, "tls-key", "", "with --webhook-listen: the private key of --tls-cert (`FILE`, PEM)")
	fs.BoolVar(&hooks.behindProxy, "behind-tls-proxy", false, "with --webhook-listen: a proxy in front terminates TLS, so a non-loopback ADDR may be served in plain HTTP")
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
	logFormat := logFormatFlag(fs)
	metricsListen := fs.String("metrics-listen", "", "serve Prometheus metrics at /metrics, with /livez and /readyz, on this `ADDR` (keep it off the internet)")
	pos, code, ok := parseFlags(fs, workerCommand, args, e)
	if !ok {
		return code
	}
	if !teamBuild { // says first what the worker needs: a flag fixed would only lead to this message
		return runTeamWorker(ctx, workerParams{}, e, nil)
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
	case hooks.check(fs, "--webhook-listen", *listen) != "":
		return usageErr(hooks.check(fs, "--webhook-listen", *listen))
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
	logger, err := newLogger(e.Stderr, *logFormat, level)
	if err != nil {
		return usageErr(err.Error())
	}
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
	return runTeamWorker(ctx, workerParams{github: g, temporal: tf, temporalTLS: temporalTLS, apiKey: apiKey, secret: secret,
		listen: *listen, hooks: hooks, metrics: *metricsListen, appID: *appID, appInstallation: *appInst, appKey: *appKey, perSecond: *perSecond, budget: budget.share(),
		machine: workerMachine(*mergeMethod, *adminMerge), bots: parseReviewBots(*reviewBots)}, e, logger)
}

// workerParams are a worker's settings once its flags are checked.
type workerParams struct {
	github          githubFlags
	temporal        temporalFlags
	temporalTLS     *tls.Config
	apiKey          string
	secret          []byte
	listen          string
	hooks           listenFlags
	metrics         string
	appID           int64
	appInstallation int64
	appKey          string
	perSecond       float64
	budget          float64
	machine         statemachine.Config
	bots            []string
}

// workerMachine is the state machine's configuration with the user's merge settings.
func workerMachine(method string, admin bool) statemachine.Config {
	machine := statemachine.DefaultConfig()
	machine.MergeMethod, machine.AllowAdminMerge = method, admin
	return machine
}
