//go:build team

package main

import (
	"os"
	"path/filepath"
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
	assert.NoError(t, os.WriteFile(bad, []byte("alice the-token-itself\n"), 0o600))
	refusedAsUsage(t, []usageCase{
		{"a tokens file that holds a token", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", bad},
			"line 1: the second field must be the 64 hex digits"},
		{"a tokens file that is not there", []string{"serve", "--http", ":0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens + ".missing"},
			"the tokens file"},
	})
}
