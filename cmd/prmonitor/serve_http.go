package main

import (
	"flag"
)

// serve --http: the team deployment's front end (docs/deploy.md). The same tools over MCP's
// Streamable HTTP at /mcp, each user by their bearer token, the monitors on Temporal; the board at
// /; /healthz. It reads no GitHub and holds no token of GitHub's: the workers do.

// teamServe are serve's flags for --http.
type teamServe struct {
	addr, tokens, metrics string
	// authKey is --auth-key-file: the deployment's auth key, the same on every replica.
	authKey  string
	temporal temporalFlags
	// listen are the allowed hosts and TLS (listen.go); origins the allow-list of Origin
	// (comma-separated; loopback when empty).
	listen  listenFlags
	origins string
	signIn  signInFlags
	// noRelayedMerge: only the user's own pick in a form merges (docs/security.md, "Consent").
	noRelayedMerge bool
}

// registerTeamServe adds --http, --auth-tokens, the listening flags (TLS, allowed hosts and
// origins) and the Temporal flags to serve's.
func registerTeamServe(fs *flag.FlagSet) *teamServe {
	t := &teamServe{}
	fs.StringVar(&t.addr, "http", "", "serve MCP over Streamable HTTP at /mcp on `ADDR` (the team deployment: needs --temporal and --auth-tokens; docs/deploy.md)")
	fs.StringVar(&t.tokens, "auth-tokens", "", "with --http: the users, one line each: LOGIN SHA256HEX GITHUB_USER_ID (the hex SHA-256 of the user's bearer token; the id owns their monitors) (`FILE`)")
	fs.StringVar(&t.listen.hosts, "allowed-hosts", "", "with --http: the host `NAMES` clients reach it by, comma-separated (a NAME:PORT matches that port only); "+
		"other Host headers are refused (default: localhost, 127.0.0.1, ::1)")
	fs.StringVar(&t.origins, "allowed-origins", "", "with --http: other web `ORIGINS` (https://tools.example.com) whose pages may call /mcp, comma-separated; "+
		"a page of the deployment's own host always may (default: pages served from a loopback host)")
	fs.StringVar(&t.listen.tlsCert, "tls-cert", "", "with --http: serve HTTPS with this certificate chain (`FILE`, PEM); needs --tls-key")
	fs.StringVar(&t.listen.tlsKey, "tls-key", "", "with --http: the private key of --tls-cert (`FILE`, PEM)")
	fs.BoolVar(&t.listen.behindProxy, "behind-tls-proxy", false, "with --http: a proxy in front terminates TLS, so a non-loopback ADDR may be served in plain HTTP")
	fs.StringVar(&t.metrics, "metrics-listen", "", "with --http: serve Prometheus metrics at /metrics, with /livez and /readyz, on this `ADDR` (keep it off the internet)")
	fs.BoolVar(&t.noRelayedMerge, "no-relayed-merge", false, "with --http: take a merge, auto-merge or merge-queue entry only from the user's own pick in a form, never relayed by an agent (docs/security.md)")
	fs.StringVar(&t.authKey, "auth-key-file", "", "with --http: the deployment's auth key (`FILE`: at least 32 bytes, e.g. openssl rand -hex 32; the same file on every front-end replica): "+
		"sign-ins, board sessions and questions' states are sealed with it, so any replica serves what another began; required with --github-client-id")
	t.temporal.register(fs, teamTaskQueue)
	t.signIn.register(fs)
	t.signIn.authKeyFile = &t.authKey
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
		for _, name := range append([]string{"auth-tokens", "auth-key-file", "metrics-listen", "no-relayed-merge", "allowed-hosts", "allowed-origins", "tls-cert", "tls-key", "behind-tls-proxy", "temporal", "namespace", "task-queue", "temporal-tls-cert", "temporal-tls-key", "temporal-api-key-file"}, signInFlagNames...) {
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
	case t.signIn.check(set, t.addr) != "":
		return t.signIn.check(set, t.addr)
	case t.tokens == "" && t.signIn.clientID == "":
		return "--http needs --auth-tokens FILE or sign-in with GitHub (--github-client-id): without either anyone who reaches the address could drive the monitors"
	case t.listen.check(fs, "--http", t.addr) != "":
		return t.listen.check(fs, "--http", t.addr)
	}
	return ""
}
