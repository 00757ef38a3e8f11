//go:build !team

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestABuildWithoutTheTeamDeploymentSaysHowToGetOne: the default build says how to build the
// team's binary, with a usage error: serve --http and the worker say it first, before any check
// of their flags (a flag fixed would only lead to this message).
func TestABuildWithoutTheTeamDeploymentSaysHowToGetOne(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(tokens, []byte("alice "+strings.Repeat("a", 64)+" 583231\n"), 0o600))
	refusedAsUsage(t, []usageCase{
		{"a worker", []string{"worker", "--temporal", "127.0.0.1:1"}, "prmonitor worker: this prmonitor is built without the team deployment"},
		{"serve --http", []string{"serve", "--http", "127.0.0.1:0", "--temporal", "127.0.0.1:1", "--auth-tokens", tokens},
			"prmonitor serve: --http: this prmonitor is built without the team deployment"},
		{"a worker without --temporal", []string{"worker"}, "prmonitor worker: this prmonitor is built without the team deployment"},
		{"a worker with its flags wrong", []string{"worker", "--webhook-listen", ":0", "--merge-method", "octopus", "--log-format", "yaml", "extra"},
			"prmonitor worker: this prmonitor is built without the team deployment"},
		{"serve --http with its flags wrong", []string{"serve", "--http", ":0"}, "prmonitor serve: --http: this prmonitor is built without the team deployment"},
		{"serve --http with a flag of the embedded server", []string{"serve", "--http", ":0", "--state-dir", tokens},
			"prmonitor serve: --http: this prmonitor is built without the team deployment"},
	})
}

// TestTheDefaultBuildLinksNoTemporal: the binary every agent host starts carries no Temporal,
// gRPC or protobuf (docs/benchmarks.md, cold start).
func TestTheDefaultBuildLinksNoTemporal(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"go.temporal.io/", "google.golang.org/grpc", "google.golang.org/protobuf", "/mcpserver/team/"} {
			assert.NotContains(t, dep, heavy, "the default build links %s", dep)
		}
	}
}
