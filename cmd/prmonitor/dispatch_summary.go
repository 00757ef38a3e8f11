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
	fmt.Fprintf(&b, "%s: %d spawn%s, %d hand-off%s, %d of %d write%s made%s; GitHub: %d GraphQL request%s, %d point%s\n",
		res.Repo, len(res.Spawns), pluralS(len(res.Spawns)), len(res.Handoffs), pluralS(len(res.Handoffs)), applied,
		len(res.Mutations), pluralS(len(res.Mutations)), dry, res.GitHub.Requests, pluralS(res.GitHub.Requests),
		res.GitHub.Points, pluralS(res.GitHub.Points))
	return b.String()
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
