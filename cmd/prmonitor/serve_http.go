package main

import (
	"flag"
)

// serve --http: the team deployment's front end (docs/deploy.md). The same tools over MCP's
// Streamable HTTP at /mcp, each user by their bearer token, the monitors on Temporal; the board at
// /; /healthz. It reads no GitHub and holds no token of GitHub's: the workers do.

// teamServe are serve's flags for --http.
type teamServe struct {
	addr, tokens string
	// noRelayedMerge: only the user's own pick in a form merges (docs/security.md, "Consent").
	noRelayedMerge bool
	temporal       temporalFlags
}

// registerTeamServe adds --http, --auth-tokens and the Temporal flags to serve's.
func registerTeamServe(fs *flag.FlagSet) *teamServe {
	t := &teamServe{}
	fs.StringVar(&t.addr, "http", "", "serve MCP over Streamable HTTP at /mcp on `ADDR` (the team deployment: needs --temporal and --auth-tokens; docs/deploy.md)")
	fs.StringVar(&t.tokens, "auth-tokens", "", "with --http: the users, one line each: USER SHA256HEX (the hex SHA-256 of the user's bearer token) (`FILE`)")
	fs.BoolVar(&t.noRelayedMerge, "no-relayed-merge", false, "with --http: take a merge, auto-merge or merge-queue entry only from the user's own pick in a form, never relayed by an agent (docs/security.md)")
	t.temporal.register(fs, teamTaskQueue)
	return t
}

// stdioOnly are serve's flags that mean nothing with --http (the monitors live in Temporal, the
// workers read GitHub, and the embedded server's pushes and notifications are its own).
var stdioOnly = []string{"state-dir", "github-url", "budget", "poll-busy", "poll-quiet", "poll-other", "dispatch",
	"quiet-hours", "quiet-weekends", "quiet-tz", "max-block", "progress-every", "checks-grace", "push", "push-grace", "notify"}

// checkTeam is the usage error of serve's flags as --http (or its absence) sees them ("" when none).
func (t *teamServe) check(fs *flag.FlagSet) string {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if t.addr == "" {
		for _, name := range []string{"auth-tokens", "no-relayed-merge", "temporal", "namespace", "task-queue", "temporal-tls-cert", "temporal-tls-key", "temporal-api-key-file"} {
			if set[name] {
				return "--" + name + " goes with --http"
			}
		}
		return ""
	}
	for _, name := range stdioOnly {
		if set[name] {
			return "--" + name + " has no effect with --http (it is the embedded server's; the workers read GitHub: docs/deploy.md)"
		}
	}
	switch {
	case t.temporal.check() != "":
		return t.temporal.check() + " with --http"
	case t.tokens == "":
		return "--http needs --auth-tokens FILE: without it anyone who reaches the address could drive the monitors"
	}
	return ""
}
