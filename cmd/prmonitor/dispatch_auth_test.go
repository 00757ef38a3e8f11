package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A token GitHub rejects is what dispatch says, with the exit code of a refused token: not a
// mistake in the repository's configuration.
func TestDispatchWithARejectedTokenSaysTheTokenWasRejected(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, greenPR())
	for _, args := range [][]string{
		{"dispatch", "--dry-run", "--github-url", g.url, "octo/widgets"},
		{"dispatch", "--github-url", g.url, "octo/widgets"},
	} {
		res := runCLI(t, &testEnv{vars: map[string]string{"GITHUB_TOKEN": "ghp_WRONGTOKEN9876543210zyxwvu"}}, args...)
		assert.Equal(t, exitAuth, res.code, res.stderr)
		assert.Empty(t, res.stdout)
		assert.Regexp(t, `^prmonitor dispatch: GitHub rejected the token \(401\): it is invalid, expired or revoked`, res.stderr)
		assert.NotContains(t, res.stderr, "dispatch.yaml", "the configuration is not the trouble")
		assert.NotContains(t, res.stderr, "ghp_WRONGTOKEN9876543210zyxwvu")
		assert.Zero(t, restWrites(g))
	}
}
