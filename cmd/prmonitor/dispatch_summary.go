package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/prmonitor/prmonitor/prstatus/dispatch/runner"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// dispatchSummary is what a person reads of a run (stderr, with --verbose or on a terminal): where
// the configuration came from, one line per open pull request with its decision, the rule and
// why, and what the run did and cost. The SPAWN and HANDOFF lines stay alone on stdout.
func dispatchSummary(res runner.Result, configFrom string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: configuration from %s\n", res.Repo, configFrom)
	if len(res.PRs) == 0 {
		fmt.Fprintf(&b, "%s: no open pull requests\n", res.Repo)
	}
	for _, d := range res.PRs {
		fmt.Fprintf(&b, "#%d %s (rule %s): %s\n", d.Number, d.Decision, d.Rule, text.OneLine(d.Reason))
	}
	for _, s := range res.Spawns {
		if s.SHA == "" { // an issue: it has no line above
			fmt.Fprintf(&b, "#%d spawn (rule 11): %s\n", s.Number, text.OneLine(s.Reason))
		}
	}
	applied := 0
	for _, m := range res.Mutations {
		if m.Applied {
			applied++
		}
	}
	dry := ""
	if res.DryRun {
		dry = " (dry run: nothing written)"
	}
	fmt.Fprintf(&b, "%s: %s, %s, %d of %s made%s; GitHub: %s, %s\n",
		res.Repo, text.Count(len(res.Spawns), "spawn", "spawns"), text.Count(len(res.Handoffs), "hand-off", "hand-offs"), applied,
		text.Count(len(res.Mutations), "write", "writes"), dry, text.Count(res.GitHub.Requests, "GraphQL request", "GraphQL requests"),
		text.Count(res.GitHub.Points, "point", "points"))
	return b.String()
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
