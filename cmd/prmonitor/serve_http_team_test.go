//go:build team

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestServeOverHTTPRefusesABadTokensFileBeforeConnectingAnywhere: in the team build, the users'
// file is read before Temporal is dialled, and a line holding a token itself, or a missing file,
// is a usage error.
func TestServeOverHTTPRefusesABadTokensFileBeforeConnectingAnywhere(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	bad := filepath.Join(dir, "bad")
	good := filepath.Join(dir, "good")
	assert.NoError(t, os.WriteFile(bad, []byte("alice the-token-itself\n"), 0o600))
	assert.NoError(t, os.WriteFile(good, []byte("alice "+strings.Repeat("0", 64)+"\n"), 0o600))
	refusedAsUsage(t, []usageCase{
		{"a tokens file that holds a token", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", bad},
			"line 1: the second field must be the 64 hex digits"},
		{"a certificate that is not there", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", good,
			"--allowed-hosts", "prmonitor.example.com", "--tls-cert", tokens + ".pem", "--tls-key", tokens + ".key"}, "--tls-cert and --tls-key"},
		{"a tokens file that is not there", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens + ".missing"},
			"the tokens file"},
	})
}
