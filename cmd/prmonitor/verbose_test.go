package main

import (
	"io"
	"net/http"
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

// refusingGitHub answers every request with a 403 that names the permissions the endpoint
// accepts and an organization's single sign-on, as GitHub does.
type refusingGitHub struct{}

func (refusingGitHub) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Accepted-GitHub-Permissions", "pull_requests=read; contents=read")
	h.Set("X-GitHub-SSO", "required; url=https://github.com/orgs/octo/sso?authorization_request=abc")
	return &http.Response{StatusCode: http.StatusForbidden, Header: h, Request: r,
		Body: io.NopCloser(strings.NewReader(`{"message": "Resource protected by organization SAML enforcement."}`))}, nil
}

// A refused token: --verbose shows what GitHub says it would have needed.
func TestCheckVerboseShowsWhatARefusedRequestNeeded(t *testing.T) {
	res := runCLIWith(t, withToken(), refusingGitHub{}, "check", "--verbose", "--github-url", "https://ghe.example.com/api/v3", testRef.String())
	assert.Equal(t, exitAuth, res.code)
	assert.Contains(t, res.stderr, `accepted_permissions="pull_requests=read; contents=read"`)
	assert.Contains(t, res.stderr, `sso="required; url=https://github.com/orgs/octo/sso?authorization_request=abc"`)
	assert.Contains(t, res.stderr, "GitHub refused access (403)")
	assert.Contains(t, res.stderr, "SAML enforcement")
	assert.NotContains(t, res.stderr, testToken)
}
