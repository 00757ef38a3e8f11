package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// version is set at build time with -ldflags "-X main.version=..."; without it, `prmonitor
// version` reads the module's version or commit from the build (version.go).
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
	case "--version", "-v":
		return runVersion(nil, e)
	case "help", "--help", "-h":
		return runHelp(ctx, args[1:], e)
	}
	for _, c := range commands {
		if c.cmd.name == args[0] {
			return c.run(ctx, args[1:], e)
		}
	}
	fmt.Fprintf(e.Stderr, "prmonitor: unknown command %q\n", sanitize.Line(args[0]))
	usage(e.Stderr)
	return exitUsage
}

// runHelp is `prmonitor help [COMMAND]`: the top-level usage, or a command's own help (what
// `prmonitor COMMAND --help` prints).
func runHelp(ctx context.Context, args []string, e env) int {
	if len(args) == 0 {
		usage(e.Stdout)
		return exitOK
	}
	for _, c := range commands {
		if c.cmd.name == args[0] {
			return c.run(ctx, []string{"--help"}, e)
		}
	}
	fmt.Fprintf(e.Stderr, "prmonitor help: unknown command %q\n", sanitize.Line(args[0]))
	usage(e.Stderr)
	return exitUsage
}

// entry is one command in the top-level usage and in run's dispatch: what is listed is what runs.
type entry struct {
	cmd     *command
	summary string // what it does, in the top-level usage
	run     func(ctx context.Context, args []string, e env) int
}

// commands are every command, in the order the usage lists them.
var commands = []entry{
	{&serveCommand, "run the MCP server over stdio (what an agent host starts)", runServe},
	{&workerCommand, "run the team deployment's worker: monitors as Temporal workflows, webhooks in", runWorker},
	{&setupCommand, "register prmonitor in claude-code, copilot-cli, vscode or cursor (or all of them found here)", runSetup},
	{&checkCommand, "print what a pull request needs now, and why", runCheck},
	{&dispatchCommand, "decide the next worker and the hand-offs over a repository's open pull requests", runDispatch},
	{&statusCommand, "list the saved monitors: state, pending question or task, last event, budget", runStatus},
	{&demoCommand, "play a pull request from push to merge on a simulated GitHub", runDemo},
	{&fsmCommand, "print the monitor's state machine", func(_ context.Context, args []string, e env) int { return runFSM(args, e) }},
	{&versionCommand, "print the version", func(_ context.Context, args []string, e env) int { return runVersion(args, e) }},
}

// usage is the top-level help: every command with its main forms, drawn from the commands'
// own usage lines.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: prmonitor <command> [flags] [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.cmd.name, c.summary)
		for _, f := range c.cmd.forms() {
			fmt.Fprintf(w, "  %-9s   prmonitor %s\n", "", f)
		}
	}
	fmt.Fprintln(w, "\n"+strings.TrimSpace(`
PR is OWNER/REPO#N or a pull request URL. The token comes from GITHUB_TOKEN, GH_TOKEN or
'gh auth token'; --github-url (or GITHUB_API_URL) points at GitHub Enterprise Server.
'prmonitor help <command>' (or 'prmonitor <command> --help') describes a command and every flag it takes.`))
}
