package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

var checkCommand = command{
	name:     "check",
	synopsis: "check [--json] [--github-url URL] [--verbose] OWNER/REPO#N|PR-URL",
	about: `Fetch the pull request once, derive what it needs now (the same decision the MCP server
makes) and print the facts with the reason for each. Nothing on GitHub is changed.

The token comes from GITHUB_TOKEN, GH_TOKEN or 'gh auth token'. Exit status: 0 printed,
2 usage, 3 no token, 4 token refused, 5 no such pull request, 6 GitHub unreachable,
7 rate limited, 1 anything else.`,
}

// runCheck is `prmonitor check`: one snapshot, Derive, print.
func runCheck(ctx context.Context, args []string, e env) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object instead of the table")
	var gh githubFlags
	gh.register(fs)
	reviewBots := reviewBotsFlag(fs)
	rest, code, ok := parseFlags(fs, checkCommand, args, e)
	if !ok {
		return code
	}
	sec := &secrets{}
	fail := func(code int, err error) int {
		fmt.Fprintf(e.Stderr, "prmonitor check: %s\n", sec.scrub(sanitize.Line(err.Error())))
		return code
	}
	if len(rest) != 1 {
		return fail(exitUsage, fmt.Errorf("want one pull request (OWNER/REPO#N or a pull request URL), got %d arguments (see 'prmonitor check --help')", len(rest)))
	}
	ref, err := prstatus.ParsePRRef(rest[0])
	if err != nil {
		return fail(exitCode(err), err)
	}
	if err := gh.refuseOtherHost(e, rest[0]); err != nil {
		return fail(exitCode(err), err)
	}

	facts, err := fetchFacts(ctx, e, &gh, sec, ref, prstatus.ReviewerPolicy{Bots: parseReviewBots(*reviewBots)})
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitFailure, fmt.Errorf("interrupted: %w", context.Cause(ctx)))
		}
		return fail(exitCode(err), err)
	}
	if err := prstatus.CheckHost(rest[0], facts.URL); err != nil {
		return fail(exitCode(err), err)
	}

	report := newCheckReport(facts)
	if gh.verbose {
		rl := report.RateLimit
		fmt.Fprintf(e.Stderr, "prmonitor check: read %s: %s; GitHub's GraphQL budget: this read cost %d, %d of %d points left%s\n",
			ref, report.Attention.Kind.Words(), rl.Cost, rl.Remaining, rl.Limit, resetWords(rl, e.Now()))
	}
	var out bytes.Buffer
	render := renderCheckText
	if *asJSON {
		render = renderCheckJSON
	}
	if err := render(&out, report); err != nil {
		return fail(exitFailure, fmt.Errorf("render: %w", err))
	}
	if _, err := e.Stdout.Write([]byte(sec.scrub(out.String()))); err != nil {
		return fail(exitFailure, fmt.Errorf("write the report: %w", err))
	}
	return exitOK
}

// fetchFacts reads one snapshot of ref and derives its facts at the current time.
func fetchFacts(ctx context.Context, e env, gh *githubFlags, sec *secrets, ref prstatus.PRRef, policy prstatus.ReviewerPolicy) (prstatus.Facts, error) {
	client, err := gh.client(ctx, e, sec)
	if err != nil {
		return prstatus.Facts{}, err
	}
	snap, err := client.Snapshot(ctx, ref)
	if err != nil {
		return prstatus.Facts{}, err
	}
	if snap == nil {
		return prstatus.Facts{}, errors.New("GitHub returned no pull request data")
	}
	return prstatus.DeriveFor(snap, e.Now(), policy), nil
}

// resetWords says when GitHub's budget refills, when it said.
func resetWords(rl prstatus.RateLimit, now time.Time) string {
	if rl.ResetAt.IsZero() {
		return ""
	}
	return ", refilled at " + clock(rl.ResetAt.Local(), now.Local())
}
