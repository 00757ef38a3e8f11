package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --verbose on a check that succeeds says what it did: where the token came from (never the
// token), each request with its status, and what the read cost; stdout is the report alone.
func TestCheckVerboseSaysWhatItDidOnSuccess(t *testing.T) {
	g := newFakeGitHub(t)
	g.play(t, openPR())
	quiet := runCLI(t, withToken(), "check", "--github-url", g.url, testRef.String())
	require.Equal(t, exitOK, quiet.code, quiet.stderr)
	require.Empty(t, quiet.stderr, "without --verbose, nothing on stderr")

	res := runCLI(t, withToken(), "check", "--verbose", "--github-url", g.url, testRef.String())
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Equal(t, strings.SplitN(quiet.stdout, "\n", 2)[0], strings.SplitN(res.stdout, "\n", 2)[0], "the report is the same")
	assert.NotContains(t, res.stdout, "level=", "logs stay on stderr")
	for _, want := range []string{
		"token_from=GITHUB_TOKEN",
		`msg="GitHub request" method=POST url=` + g.url + "/graphql",
		"status=200",
		"prmonitor check: read octo/widgets#7: ",
	} {
		assert.Contains(t, res.stderr, want)
	}
	assert.Regexp(t, `GitHub's GraphQL budget: this read cost \d+, \d+ of 5000 points left`, res.stderr)
	assert.NotContains(t, res.stderr, testToken)
	assert.NotContains(t, res.stderr, "Authorization")

	gh := &testEnv{gh: func([]string) ([]byte, error) { return []byte(testToken + "\n"), nil }}
	res = runCLI(t, gh, "check", "--verbose", "--github-url", g.url, testRef.String())
	require.Equal(t, exitOK, res.code, res.stderr)
	assert.Contains(t, res.stderr, `token_from="gh auth token --hostname `+strings.TrimPrefix(g.url, "http://")+`"`)
	assert.NotContains(t, res.stderr, testToken)
	assert.Equal(t, strings.Count(res.stderr, "GitHub request"), strings.Count(res.stderr, "status="), "each request logged once, with its answer")
}
