package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes. Each failure class has its own so scripts can tell them apart.
const (
	exitOK          = 0
	exitFailure     = 1 // anything not classified below
	exitUsage       = 2 // bad flags, unknown command, malformed PR reference, invalid --github-url
	exitNoToken     = 3 // no GitHub token found
	exitAuth        = 4 // GitHub refused the token (401) or its access (403)
	exitNotFound    = 5 // no such pull request or repository, or not visible to the token (404)
	exitUnreachable = 6 // network failure (refused connection, DNS, timeout) or GitHub down, after retries
	exitRateLimited = 7 // rate limited for longer than a one-shot command waits
)

// exitCode classifies an error from the GitHub side of a command.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, prstatus.ErrBadRef), errors.Is(err, ghclient.ErrBadURL):
		return exitUsage
	case errors.Is(err, ghclient.ErrNoToken):
		return exitNoToken
	case errors.Is(err, ghclient.ErrUnauthorized), errors.Is(err, ghclient.ErrForbidden):
		return exitAuth
	case errors.Is(err, ghclient.ErrNotFound):
		return exitNotFound
	case errors.Is(err, ghclient.ErrRateLimited):
		return exitRateLimited
	case errors.Is(err, ghclient.ErrUnavailable):
		return exitUnreachable
	}
	return exitFailure
}

// run is main without the process: arguments and the outside world (streams, environment, clock,
// external commands) are passed in.
func run(ctx context.Context, args []string, e env) int {
	e = e.withDefaults()
	if len(args) == 0 {
		usage(e.Stderr)
		return exitUsage
	}
	switch args[0] {
	case "version", "--version", "-v":
		fmt.Fprintf(e.Stdout, "prmonitor %s\n", version)
		return exitOK
	case "check":
		return runCheck(ctx, args[1:], e)
	case "dispatch":
		return runDispatch(ctx, args[1:], e)
	case "demo":
		return runDemo(ctx, args[1:], e)
	case "serve":
		return runServe(ctx, args[1:], e)
	case "worker":
		return runWorker(ctx, args[1:], e)
	case "setup":
		return runSetup(ctx, args[1:], e)
	case "status":
		return runStatus(ctx, args[1:], e)
	case "fsm":
		return runFSM(args[1:], e)
	case "help", "--help", "-h":
		usage(e.Stdout)
		return exitOK
	default:
		fmt.Fprintf(e.Stderr, "prmonitor: unknown command %q\n", oneLine(args[0]))
		usage(e.Stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, strings.TrimSpace(`
usage: prmonitor <command> [flags]

commands:
  serve                      run the MCP server over stdio
  worker                     run the team deployment's worker: monitors as Temporal workflows, webhooks in
  setup HOST                 register prmonitor in claude-code, copilot-cli, vscode or cursor (or all)
  check [--json] PR          print what a pull request needs now, and why
  dispatch OWNER/REPO        decide the next worker and the hand-offs over all open pull requests
  status [--json | --watch]  list the saved monitors: state, pending question or task, last event, budget
  demo                       play a built-in scenario on a simulated GitHub
  fsm --mermaid              print the monitor's state diagram
  version                    print the version

PR is OWNER/REPO#N or a pull request URL. The token comes from GITHUB_TOKEN, GH_TOKEN or
'gh auth token'; --github-url (or GITHUB_API_URL) points at GitHub Enterprise Server.
'prmonitor <command> --help' describes a command.`))
}
