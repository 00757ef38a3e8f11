package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestServeOverHTTPRefusesAnIncompleteOrMixedCommandLineBeforeConnectingAnywhere(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	assert.NoError(t, os.WriteFile(tokens, []byte("alice 0000000000000000000000000000000000000000000000000000000000000000\n"), 0o600))
	bad := filepath.Join(dir, "bad")
	assert.NoError(t, os.WriteFile(bad, []byte("alice the-token-itself\n"), 0o600))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no Temporal", []string{"serve", "--http", ":0", "--auth-tokens", tokens}, "--temporal HOST:PORT is required with --http"},
		{"no users", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1"}, "--http needs --auth-tokens FILE"},
		{"a flag of the embedded server", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens, "--state-dir", dir},
			"--state-dir has no effect with --http"},
		{"a team flag without --http", []string{"serve", "--temporal", "127.0.0.1:1"}, "--temporal goes with --http"},
		{"a tokens file that holds a token", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", bad},
			"line 1: the second field must be the 64 hex digits"},
		{"a tokens file that is not there", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens + ".missing"},
			"the tokens file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, withToken(), tt.args...)
			assert.Equal(t, exitUsage, res.code, res.stderr)
			assert.Contains(t, res.stderr, tt.want)
			assert.Empty(t, res.stdout, "stdout is the protocol's")
		})
	}
}
