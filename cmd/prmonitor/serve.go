package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver"
	"github.com/prmonitor/prmonitor/mcpserver/monitor"
	"github.com/prmonitor/prmonitor/mcpserver/store"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
	prwatch "github.com/prmonitor/prmonitor/prstatus/watch"
	"github.com/prmonitor/prmonitor/statemachine"
)

var serveCommand = command{
	name:     "serve",
	synopsis: "serve [--state-dir DIR] [--github-url URL] [--budget SHARE] [--quiet-hours HH:MM-HH:MM] [flags]",
	more:     []string{"serve --http ADDR --temporal HOST:PORT {--auth-tokens FILE | --github-client-id ID ...} [--tls-cert FILE --tls-key FILE] [--allowed-hosts NAMES] [flags]"},
	about: "Run the MCP server over stdio (stdin/stdout carry the protocol; logs go to stderr). Register it in your agent\n" +
		"host, then have the agent call pr_monitor_start and loop on pr_monitor_next_step. With --http, serve the same\n" +
		"tools over MCP's Streamable HTTP at /mcp for a team, the monitors on Temporal (docs/deploy.md; the team build:\n" +
		"go install -tags team ./cmd/prmonitor).",
}

// runServe runs the MCP server until stdin closes or the process is interrupted.
func runServe(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var g githubFlags
	g.register(fs)
	stateDir := fs.String("state-dir", "", "where monitors are saved across restarts (`DIR`; default: the user's state directory)")
	maxBlock := newDurationFlag(fs, "max-block", 0, "longest a pr_monitor_next_step call outside an MCP task blocks before returning polling,\n"+
		"whatever the host (`DURATION`; default: a bound that fits the host the client names, 50s for one we do not know; see docs/hosts.md)")
	progressEvery := newDurationFlag(fs, "progress-every", 5*time.Second, "how often a waiting call sends a progress notification (`DURATION`; hosts that keep a call alive on progress want it within 15s)")
	var budget budgetFlag
	fs.Var(&budget, "budget", "share of the token's hourly GraphQL points the watcher may spend: `SHARE` as 25% or 0.25 (default 25%)")
	pollBusy := newDurationFlag(fs, "poll-busy", 0, "the watcher's shortest cycle (`DURATION`; default: the watcher paces itself, from 8s);\n"+
		"kept from when each call polled: the shortest of --poll-busy, --poll-quiet and --poll-other is used")
	pollQuiet := newDurationFlag(fs, "poll-quiet", 0, "kept for compatibility: as --poll-busy (`DURATION`)")
	pollOther := newDurationFlag(fs, "poll-other", 0, "kept for compatibility: as --poll-busy (`DURATION`)")
	mergeMethod := fs.String("merge-method", "squash", "the `METHOD` of a merge the user chooses: merge, squash or rebase")
	adminMerge := fs.Bool("allow-admin-merge", false, "after a branch-policy refusal, offer merging with administrator bypass")
	noAutoRerun := fs.Bool("no-auto-rerun", false, "never re-run a failure known to be flaky by itself (once per head, before the agent hears of it);\n"+
		"every failure then goes to the agent (docs/watcher.md)")
	dispatch := fs.Bool("dispatch", false, "also offer the pr_dispatch tool (the repository dispatcher) to agents")
	checksGrace := fs.Duration("checks-grace", prstatus.DefaultChecksGrace, "how long after a push a head with no check, on a base branch that\n"+
		"requires none, waits for checks to register before it counts as green (`DURATION`; 0 for no wait)")
	push := fs.String("push", "auto", "when to push a Claude Code channel event for an action that waits on the agent while no call waits:\n"+
		"`MODE` auto (to Claude Code), always (to any client) or off (see docs/hosts.md)")
	pushGrace := newDurationFlag(fs, "push-grace", 5*time.Second, "how long an action waits for a call to take it before it is pushed (`DURATION`)")
	notify := fs.Bool("notify", false, "show a desktop notification when a question waits for you and the agent's host cannot show it,\n"+
		"or shows it and nobody answers (never in quiet hours)")
	var qf quietFlags
	qf.register(fs)
	reviewBots := reviewBotsFlag(fs)
	logFormat := logFormatFlag(fs)
	team := registerTeamServe(fs)
	if code, ok := parseNoArguments(fs, serveCommand, args, e); !ok {
		return code
	}
	if team.addr != "" && !teamBuild {
		return runServeHTTP(ctx, team, statemachine.Config{}, nil, e, nil)
	}
	if msg := team.check(fs); msg != "" {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s (see 'prmonitor serve --help')\n", msg)
		return exitUsage
	}
	switch *mergeMethod {
	case "merge", "squash", "rebase":
	default:
		fmt.Fprintf(e.Stderr, "prmonitor serve: --merge-method must be merge, squash or rebase, not %q\n", *mergeMethod)
		return exitUsage
	}
	if *checksGrace < 0 {
		fmt.Fprintf(e.Stderr, "prmonitor serve: --checks-grace must be 0 or more, not %s\n", *checksGrace)
		return exitUsage
	}
	pushMode, err := mcpserver.ParsePushMode(*push)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: --push: %s\n", sanitize.Line(err.Error()))
		return exitUsage
	}
	hours, err := qf.hours()
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sanitize.Line(err.Error()))
		return exitUsage
	}
	level := slog.LevelInfo
	if g.verbose {
		level = slog.LevelDebug
	}
	logger, err := newLogger(e.Stderr, *logFormat, level)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s (see 'prmonitor serve --help')\n", err)
		return exitUsage
	}
	machine := statemachine.DefaultConfig()
	machine.MergeMethod, machine.AllowAdminMerge, machine.NoAutoRerun = *mergeMethod, *adminMerge, *noAutoRerun
	if team.addr != "" {
		return runServeHTTP(ctx, team, machine, parseReviewBots(*reviewBots), e, logger)
	}

	ep, err := ghclient.ResolveEndpoints(e.Getenv, g.url)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sanitize.Line(err.Error()))
		return exitUsage
	}
	state, key, gate, st, err := openState(*stateDir, ep.REST, e, logger)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sanitize.Line(err.Error()))
		return exitFailure
	}
	sec := &secrets{}
	webHost, _ := ep.WebHost()
	srv, err := mcpserver.New(mcpserver.Config{
		Version: version,
		WebHost: webHost,
		Connect: func(ctx context.Context) (mcpserver.GitHub, error) {
			return g.clientWith(ctx, e, sec, ghclient.DefaultRetryPolicy(), logger, gate)
		},
		State:         state,
		Machine:       machine,
		Watch:         watcherConfig(float64(budget), st.Spend(ep.REST), st.Seen(ep.REST), *pollBusy, *pollQuiet, *pollOther),
		MaxBlock:      *maxBlock,
		ProgressEvery: *progressEvery,
		Quiet:         hours,
		SealKey:       key,
		Now:           e.Now,
		Logger:        logger,
		ReviewBots:    parseReviewBots(*reviewBots),
		Dispatch:      *dispatch,
		ChecksGrace:   graceOf(*checksGrace),
		Push:          pushMode,
		PushGrace:     *pushGrace,
		PushEvery:     pushEvery(*pushGrace),
		Notify:        notifier(*notify),
	})
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sanitize.Line(err.Error()))
		return exitFailure
	}
	warnWithoutToken(ctx, e, ep.Host(), logger)
	logger.Info("prmonitor MCP server on stdio", "version", version, "quiet_hours", hours.String(), "push", pushMode.String(), "notify", *notify)
	defer markServer(st, ep.REST, logger)()
	if err := srv.ServeStdio(ctx, e.Stdin, e.Stdout); err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return exitFailure
	}
	return exitOK
}

// warnWithoutToken says on stderr, at start, that no GitHub token is to be found, and where it
// looked. The server starts all the same: the agent reads the same error from each tool that needs
// GitHub, which looks for the token again (a `gh auth login` meanwhile is found then), and the tools
// that need no GitHub work.
func warnWithoutToken(ctx context.Context, e env, host string, logger *slog.Logger) {
	_, err := ghclient.ResolveToken(ctx, e.Getenv, host, e.RunCommand)
	if !errors.Is(err, ghclient.ErrNoToken) {
		return
	}
	if host == "" {
		host = "github.com"
	}
	logger.Warn("no GitHub token: the server starts, but every tool that reads GitHub fails until one is found "+
		"(gh auth login is seen at the next call; GITHUB_TOKEN in the host's entry for prmonitor, once the host restarts the server)",
		"looked_in", "GITHUB_TOKEN, GH_TOKEN, gh auth token --hostname "+host, "err", text.Error(err))
}

// graceOf is --checks-grace as mcpserver.Config takes it: 0 (no wait) is a negative grace there.
func graceOf(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}

// openState opens the state directory, the key that seals multi-round-trip request state, and
// the token's rate-limit gate. The key is kept beside the monitors (0600) so a client's retry
// still opens after a restart; the gate's holds are kept there too, so a restart sends nothing
// before the time GitHub named.
func openState(dir, api string, e env, logger *slog.Logger) (monitor.Persister, []byte, *ghclient.Gate, *store.Store, error) {
	if dir == "" {
		d, err := store.DefaultDir(e.Getenv, runtime.GOOS)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("find the state directory (use --state-dir): %w", err)
		}
		dir = d
	}
	st, err := store.Open(dir, logger, store.WithNow(e.Now))
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("open the state directory: %w", err)
	}
	key, err := st.Secret("seal.key", 32)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("the seal key: %w", err)
	}
	gate := ghclient.NewGate(st.Gate(api), e.Now, logger)
	return monitor.NewStoreState(st, api, e.Now), key, gate, st, nil
}

// watcherConfig is the watcher's configuration: --budget, its spend and what it has seen kept in
// the state directory, and the old poll intervals: when set, the shortest is the watcher's shortest cycle (and its
// jitter, so a short cycle stays short).
func watcherConfig(budget float64, spend prwatch.SpendStore, seen prwatch.SeenStore, polls ...time.Duration) prwatch.Config {
	cfg := prwatch.Config{Budget: budget, Spend: spend, Seen: seen}
	for _, p := range polls {
		if p > 0 && (cfg.MinCycle == 0 || p < cfg.MinCycle) {
			cfg.MinCycle = p
		}
	}
	if cfg.MinCycle > 0 && cfg.MinCycle < prwatch.DefaultJitter {
		cfg.Jitter = cfg.MinCycle
	}
	return cfg
}

// pushEvery is how often the server looks for actions to push: every second, or more often when
// the grace is shorter (a fraction of it, so a push goes out soon after the grace ends).
func pushEvery(grace time.Duration) time.Duration {
	return min(time.Second, max(grace/4, 10*time.Millisecond))
}

// notifier is --notify's desktop notifier (nil without it).
func notifier(on bool) mcpserver.Notifier {
	if !on {
		return nil
	}
	return newDesktopNotifier()
}
