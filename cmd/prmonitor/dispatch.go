package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/prmonitor/prmonitor/prstatus/dispatch"
	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

var dispatchCommand = command{
	name:     "dispatch",
	synopsis: "dispatch [--config FILE] [--dry-run] [--json] [--templates DIR] [--github-url URL] OWNER/REPO",
	about: `Look at every open pull request of the repository once, decide which single worker is
needed next and which pull requests are ready for a human, and print one line each:
SPAWN:<type>:<number>:<sha> and HANDOFF:<number> (nothing when nothing is due). The run keeps
its lock and hand-off labels and assignees up to date; --dry-run changes nothing on GitHub and
prints the same lines. Nothing is ever merged or closed. It works only on pull requests and
issues by the configured user, trusted_authors, or people with write access (forks only with
allow_forks); the others are skipped, and --json says why.

With --verbose, or when stderr is a terminal, a one-line summary per pull request goes to stderr
(stdout keeps only the lines). The configuration is --config, else ` + dispatch.DefaultConfigPath + `
on the repository's default branch (read through GitHub's API, never from the working directory),
else the built-in defaults. The token comes from GITHUB_TOKEN, GH_TOKEN or 'gh auth token'. Exit
status: 0 ran, 2 usage or configuration, 3 no token, 4 token refused, 5 no such repository, 6
GitHub unreachable, 7 rate limited, 1 anything else.`,
}

// runDispatch is `prmonitor dispatch`: one stateless run of the dispatcher.
func runDispatch(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("dispatch", flag.ContinueOnError)
	configPath := fs.String("config", "", "the configuration `FILE` (default "+dispatch.DefaultConfigPath+" on the repository's default branch)")
	dryRun := fs.Bool("dry-run", false, "decide and print, but change nothing on GitHub")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the lines")
	templates := fs.String("templates", "", "a `DIR` of worker task templates (<type>.md) overriding the built-in ones")
	var gh githubFlags
	gh.register(fs)
	rest, code, ok := parseFlags(fs, dispatchCommand, args, e)
	if !ok {
		return code
	}
	sec := &secrets{}
	fail := func(code int, err error) int {
		fmt.Fprintf(e.Stderr, "prmonitor dispatch: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return code
	}
	if len(rest) != 1 {
		return fail(exitUsage, fmt.Errorf("want one repository (OWNER/REPO), got %d arguments (see 'prmonitor dispatch --help')", len(rest)))
	}
	repo, err := dispatch.ParseRepo(rest[0])
	if err != nil {
		return fail(exitCode(err), err)
	}
	// A configuration file named on purpose is read first: its mistakes are usage errors, found
	// before any token is needed.
	cfg, err := runner.LoadConfig(*configPath)
	if err != nil {
		return fail(exitUsage, err)
	}
	tpl, err := runner.LoadTemplates(*templates)
	if err != nil {
		return fail(exitUsage, err)
	}

	client, err := gh.client(ctx, e, sec)
	if err != nil {
		return fail(exitCode(err), err)
	}
	from := *configPath
	if from == "" {
		if cfg, from, err = runner.ConfigFor(ctx, client, repo, ""); err != nil {
			if errors.Is(err, dispatch.ErrConfig) {
				return fail(exitUsage, err)
			}
			return fail(exitCode(err), err)
		}
	}
	res, err := runner.Run(ctx, client, runner.Request{Repo: repo, Config: cfg, Templates: tpl, DryRun: *dryRun, Now: e.Now()})
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitFailure, fmt.Errorf("interrupted: %w", context.Cause(ctx)))
		}
		return fail(exitCode(err), err)
	}

	var out bytes.Buffer
	if *asJSON {
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(res); err != nil {
			return fail(exitFailure, fmt.Errorf("render: %w", err))
		}
	} else {
		out.WriteString(res.Lines())
	}
	if _, err := e.Stdout.Write([]byte(sec.scrub(out.String()))); err != nil {
		return fail(exitFailure, fmt.Errorf("write the result: %w", err))
	}
	if gh.verbose || isTerminal(e.Stderr) {
		_, _ = io.WriteString(e.Stderr, sec.scrub(dispatchSummary(res, from)))
	}
	return exitOK
}
