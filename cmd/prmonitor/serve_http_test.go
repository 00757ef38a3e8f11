package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// serve --http checks its command line before it connects anywhere (in the team build: the
// default build says first that it is not the team build, team_off_test.go).
func TestServeOverHTTPRefusesAnIncompleteOrMixedCommandLineBeforeConnectingAnywhere(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	assert.NoError(t, os.WriteFile(tokens, []byte("alice 0000000000000000000000000000000000000000000000000000000000000000 583231\n"), 0o600))
	cases := []usageCase{
		{"a team flag without --http", []string{"serve", "--temporal", "127.0.0.1:1"}, "--temporal goes with --http"},
		{"TLS without --http", []string{"serve", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "--tls-cert goes with --http"},
	}
	if teamBuild {
		cases = append(cases,
			usageCase{"no Temporal", []string{"serve", "--http", "127.0.0.1:0", "--auth-tokens", tokens}, "--temporal HOST:PORT is required with --http"},
			usageCase{"no users", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1"}, "--http needs --auth-tokens FILE"},
			usageCase{"a flag of the embedded server", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens, "--state-dir", dir},
				"--state-dir has no effect with --http"})
	}
	refusedAsUsage(t, cases)
}

func TestServeOverHTTPRefusesAnIncompleteSignInWithGitHub(t *testing.T) {
	base := []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1"}
	full := append(append([]string{}, base...), "--github-client-id", "Iv1.x", "--github-client-secret-file", "s", "--github-users", "u", "--auth-key-file", "k")
	with := func(args ...string) []string { return append(append([]string{}, full...), args...) }
	cases := []usageCase{{"a sign-in flag without --http", []string{"serve", "--github-client-id", "Iv1.x"}, "--github-client-id goes with --http"}}
	if !teamBuild { // the default build says first that --http needs the team build
		refusedAsUsage(t, cases)
		return
	}
	refusedAsUsage(t, append(cases, []usageCase{
		{"a secret without the app", append(append([]string{}, base...), "--github-client-secret-file", "s"), "--github-client-secret-file goes with --github-client-id"},
		{"no secret", append(append([]string{}, base...), "--github-client-id", "Iv1.x"), "needs --github-client-secret-file FILE"},
		{"no users", append(append([]string{}, base...), "--github-client-id", "Iv1.x", "--github-client-secret-file", "s"), "needs --github-users FILE"},
		{"no auth key", append(append([]string{}, base...), "--github-client-id", "Iv1.x", "--github-client-secret-file", "s", "--github-users", "u"), "needs --auth-key-file FILE"},
		{"the store file of before (gone: --auth-key-file and the ledger replace it)", with("--oauth-store", "o"), "unknown flag --oauth-store"},
		{"no public address off loopback", []string{"serve", "--http", ":8080", "--temporal", "127.0.0.1:1", "--github-client-id", "Iv1.x",
			"--github-client-secret-file", "s", "--github-users", "u", "--auth-key-file", "k"}, "needs --public-url URL"},
		{"a plain http public address", with("--public-url", "http://prmonitor.example.com"), "--public-url must be an https URL"},
	}...))
}

// usageCase is a command line and what its usage error says.
type usageCase struct {
	name string
	args []string
	want string
}

// refusedAsUsage runs each case and checks it ends in a usage error saying what it should, with
// nothing on stdout.
func refusedAsUsage(t *testing.T, cases []usageCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, withToken(), tt.args...)
			assert.Equal(t, exitUsage, res.code, res.stderr)
			assert.Contains(t, res.stderr, tt.want)
			assert.Empty(t, res.stdout, "stdout is the protocol's")
		})
	}
}
