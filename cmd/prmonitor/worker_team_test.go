//go:build team

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTheWorkersWebhookListensByTheFrontEndsRules: --webhook-listen off loopback is served over
// TLS (--tls-cert, --tls-key) or behind a TLS proxy (--behind-tls-proxy), and needs the names
// GitHub posts to (--allowed-hosts); the flags go with --webhook-listen; all refused before
// anything is dialled.
func TestTheWorkersWebhookListensByTheFrontEndsRules(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	assert.NoError(t, os.WriteFile(secret, []byte("s3cret"), 0o600))
	hook := []string{"worker", "--temporal", "127.0.0.1:1", "--webhook-secret-file", secret, "--webhook-listen"}
	with := func(addr string, more ...string) []string {
		return append(append(append([]string{}, hook...), addr), more...)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"every interface in plain HTTP", with(":8080"), "--webhook-listen :8080 is reachable from other machines and would be served in plain HTTP"},
		{"behind a proxy, without the names GitHub posts to", with(":8080", "--behind-tls-proxy"), "pass --allowed-hosts"},
		{"TLS without the names", with(":8080", "--tls-cert", "c.pem", "--tls-key", "k.pem"), "pass --allowed-hosts"},
		{"a certificate without its key", with(":8080", "--tls-cert", "c.pem"), "--tls-cert and --tls-key go together"},
		{"TLS here and at a proxy", with(":8080", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--behind-tls-proxy"), "--behind-tls-proxy means this process serves plain HTTP"},
		{"a certificate that is not there", with(":8080", "--allowed-hosts", "hooks.example.com", "--tls-cert", filepath.Join(dir, "c.pem"), "--tls-key", filepath.Join(dir, "k.pem")),
			"--tls-cert and --tls-key:"},
		{"the names without a webhook", []string{"worker", "--temporal", "127.0.0.1:1", "--allowed-hosts", "hooks.example.com"}, "--allowed-hosts goes with --webhook-listen"},
		{"TLS without a webhook", []string{"worker", "--temporal", "127.0.0.1:1", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "--tls-cert goes with --webhook-listen"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runCLI(t, withToken(), tt.args...)
			assert.Equal(t, exitUsage, res.code, res.stderr)
			assert.Contains(t, res.stderr, tt.want)
			assert.Empty(t, res.stdout)
		})
	}
}
