package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The team build's worker checks its command line before it connects anywhere (the default build
// says first that it is not the team build, team_off_test.go).
func TestWorkerRefusesAnIncompleteCommandLineBeforeConnectingAnywhere(t *testing.T) {
	if !teamBuild {
		t.Skip("the worker's checks are the team build's (-tags team); the default build's worker says first that it needs it")
	}
	secret := filepath.Join(t.TempDir(), "secret")
	assert.NoError(t, os.WriteFile(secret, []byte("s3cret"), 0o600))
	empty := filepath.Join(t.TempDir(), "empty")
	assert.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no Temporal frontend", []string{"worker"}, "--temporal HOST:PORT is required"},
		{"a webhook address without its secret", []string{"worker", "--temporal", "127.0.0.1:1", "--webhook-listen", ":0"}, "go together"},
		{"a secret without an address", []string{"worker", "--temporal", "127.0.0.1:1", "--webhook-secret-file", secret}, "go together"},
		{"half a GitHub App", []string{"worker", "--temporal", "127.0.0.1:1", "--app-id", "7"}, "needs --app-id, --app-private-key and --app-installation"},
		{"an App's installation alone", []string{"worker", "--temporal", "127.0.0.1:1", "--app-installation", "42"}, "needs --app-id"},
		{"a merge method GitHub does not have", []string{"worker", "--temporal", "127.0.0.1:1", "--merge-method", "octopus"}, "merge, squash or rebase"},
		{"a client certificate without its key", []string{"worker", "--temporal", "127.0.0.1:1", "--temporal-tls-cert", secret}, "go together"},
		{"a certificate that is none", []string{"worker", "--temporal", "127.0.0.1:1", "--temporal-tls-cert", secret, "--temporal-tls-key", secret}, "client certificate"},
		{"an empty API key", []string{"worker", "--temporal", "127.0.0.1:1", "--temporal-api-key-file", empty}, "is empty"},
		{"a budget that is no share", []string{"worker", "--temporal", "127.0.0.1:1", "--budget", "150%"}, "at most 100%"},
		{"a stray argument", []string{"worker", "--temporal", "127.0.0.1:1", "extra"}, "unexpected argument"},
		{"a log format neither text nor json", []string{"worker", "--temporal", "127.0.0.1:1", "--log-format", "yaml"}, `prmonitor worker: --log-format must be text or json, not "yaml"`},
		{"a secret file that is not there", []string{"worker", "--temporal", "127.0.0.1:1", "--webhook-listen", ":0", "--webhook-secret-file", secret + ".missing"}, "the webhook secret"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, withToken(), tt.args...)
			assert.Equal(t, exitUsage, res.code)
			assert.Contains(t, res.stderr, tt.want)
			assert.Empty(t, res.stdout)
			assert.NotContains(t, res.stderr, testToken)
		})
	}
}
