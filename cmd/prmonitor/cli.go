package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// Exit codes. Each failure class has its own so scripts can tell them apart.
const (
	exitOK          = 0
	exitFailure     = 1 // anything not classified below
	exitUsage       = 2 // bad flags, unknown command, malformed PR reference
	exitNoToken     = 3 // no GitHub token found
	exitAuth        = 4 // GitHub refused the token (401)
	exitNotFound    = 5 // no such pull request or repository (404)
	exitUnreachable = 6 // network failure, GitHub down, rate limited past our patience
)

// run is main without the process: arguments, streams and environment are passed in.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "prmonitor %s\n", version)
		return exitOK
	case "fsm":
		return runFSM(args[1:], stdout, stderr)
	case "help", "--help", "-h":
		usage(stdout)
		return exitOK
	default:
		fmt.Fprintf(stderr, "prmonitor: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, strings.TrimSpace(`
usage: prmonitor <command> [flags]

commands:
  serve                      run the MCP server over stdio
  check [--json] PR          print what a pull request needs now, and why
  demo                       play a built-in scenario on a simulated GitHub
  fsm --mermaid              print the monitor's state diagram
  version                    print the version

PR is OWNER/REPO#N or a pull request URL. The token comes from GITHUB_TOKEN, GH_TOKEN or
'gh auth token'; --github-url (or GITHUB_API_URL) points at GitHub Enterprise Server.`))
}
