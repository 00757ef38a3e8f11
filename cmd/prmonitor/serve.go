package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

var serveCommand = command{
	name:     "serve",
	synopsis: "serve [flags]",
	about: "Run the MCP server over stdio (stdin/stdout carry the protocol; logs go to stderr). Register it in your agent\n" +
		"host, then have the agent call pr_monitor_start and loop on pr_monitor_next_step.",
}

// runServe runs the MCP server until stdin closes or the process is interrupted.
func runServe(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var g githubFlags
	g.register(fs)
	stateDir := fs.String("state-dir", "", "where monitors are saved across restarts (`DIR`; default: the user's state directory)")
	maxBlock := fs.Duration("max-block", 10*time.Minute, "longest a pr_monitor_next_step call blocks before returning polling")
	pollBusy := fs.Duration("poll-busy", 30*time.Second, "poll interval while checks run")
	pollQuiet := fs.Duration("poll-quiet", 2*time.Minute, "poll interval while waiting on people")
	pollOther := fs.Duration("poll-other", time.Minute, "poll interval otherwise")
	mergeMethod := fs.String("merge-method", "squash", "merge method when the user chooses to merge: merge, squash or rebase")
	adminMerge := fs.Bool("allow-admin-merge", false, "after a branch-policy refusal, offer merging with administrator bypass")
	if _, code, ok := parseFlags(fs, serveCommand, args, e); !ok {
		return code
	}
	switch *mergeMethod {
	case "merge", "squash", "rebase":
	default:
		fmt.Fprintf(e.Stderr, "prmonitor serve: --merge-method must be merge, squash or rebase, not %q\n", *mergeMethod)
		return exitUsage
	}
	level := slog.LevelInfo
	if g.verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(e.Stderr, &slog.HandlerOptions{Level: level}))

	state, key, err := openState(*stateDir, e, logger)
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", oneLine(err.Error()))
		return exitFailure
	}
	sec := &secrets{}
	machine := statemachine.DefaultConfig()
	machine.MergeMethod, machine.AllowAdminMerge = *mergeMethod, *adminMerge
	srv, err := mcpserver.New(mcpserver.Config{
		Version: version,
		Connect: func(ctx context.Context) (mcpserver.GitHub, error) {
			return g.clientWith(ctx, e, sec, ghclient.DefaultRetryPolicy(), logger)
		},
		State:    state,
		Machine:  machine,
		Poll:     mcpserver.PollPolicy{Busy: *pollBusy, Quiet: *pollQuiet, Other: *pollOther, MaxBackoff: 5 * time.Minute, LowRateLimit: 200},
		MaxBlock: *maxBlock,
		SealKey:  key,
		Now:      e.Now,
		Logger:   logger,
	})
	if err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", oneLine(err.Error()))
		return exitFailure
	}
	logger.Info("prmonitor MCP server on stdio", "version", version)
	if err := srv.ServeStdio(ctx, e.Stdin, e.Stdout); err != nil {
		fmt.Fprintf(e.Stderr, "prmonitor serve: %s\n", sec.scrub(oneLine(err.Error())))
		return exitFailure
	}
	return exitOK
}

// openState returns where monitors are kept, and the key that seals multi-round-trip state.
func openState(dir string, e env, logger *slog.Logger) (mcpserver.Persister, []byte, error) {
	_ = dir
	_ = e
	logger.Warn("monitors are kept in memory only for now")
	return mcpserver.NewMemoryState(), nil, nil
}
