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
	assert.NoError(t, os.WriteFile(bad, []byte("alice the-token-itself 583231\n"), 0o600))
	good, short := filepath.Join(dir, "good"), filepath.Join(dir, "short")
	assert.NoError(t, os.WriteFile(good, []byte("alice "+strings.Repeat("0", 64)+" 583231\n"), 0o600))
	assert.NoError(t, os.WriteFile(short, []byte("0123456789abcdef\n"), 0o600))
	refusedAsUsage(t, []usageCase{
		{"a tokens file that holds a token", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", bad},
			"line 1: the second field must be the 64 hex digits"},
		{"a tokens file that is not there", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens + ".missing"},
			"the tokens file"},
		{"an auth key too short to seal with", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", good, "--auth-key-file", short},
			"the key must be at least 32 bytes"},
	})
}

// TestServeOverHTTPRefusesPlainHTTPOffLoopbackAndAsksForItsNames: in the team build, an address
// other machines reach is served over TLS, or in plain HTTP only behind a TLS proxy, and needs
// the host names clients use; a certificate that cannot be read is a usage error, all before
// Temporal is dialled.
func TestServeOverHTTPRefusesPlainHTTPOffLoopbackAndAsksForItsNames(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	good := filepath.Join(dir, "good")
	assert.NoError(t, os.WriteFile(good, []byte("alice "+strings.Repeat("0", 64)+" 583231\n"), 0o600))
	refusedAsUsage(t, []usageCase{
		{"a certificate that is not there", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", good,
			"--allowed-hosts", "prmonitor.example.com", "--tls-cert", tokens + ".pem", "--tls-key", tokens + ".key"}, "--tls-cert and --tls-key"},
		{"every interface in plain HTTP", []string{"serve", "--http", ":8443", "--temporal", "127.0.0.1:1", "--auth-tokens", good},
			"--http :8443 is reachable from other machines and would be served in plain HTTP"},
		{"a certificate without its key", []string{"serve", "--http", ":8443", "--temporal", "127.0.0.1:1", "--auth-tokens", good, "--tls-cert", "c.pem"},
			"--tls-cert and --tls-key go together"},
		{"TLS both here and at a proxy", []string{"serve", "--http", ":8443", "--temporal", "127.0.0.1:1", "--auth-tokens", good,
			"--tls-cert", "c.pem", "--tls-key", "k.pem", "--behind-tls-proxy"}, "--behind-tls-proxy means this process serves plain HTTP"},
		{"every interface over TLS without the names it answers to", []string{"serve", "--http", ":8443", "--temporal", "127.0.0.1:1",
			"--auth-tokens", good, "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "pass --allowed-hosts"},
		{"behind a proxy without the names it answers to", []string{"serve", "--http", "0.0.0.0:8080", "--temporal", "127.0.0.1:1",
			"--auth-tokens", good, "--behind-tls-proxy"}, "pass --allowed-hosts"},
	})
}
