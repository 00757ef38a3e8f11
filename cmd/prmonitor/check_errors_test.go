package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// refusedURL is a loopback URL where nothing listens.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr
}

// noDNS is a transport whose resolver cannot reach any DNS server: every host name fails to
// resolve, as on a machine without network, and nothing leaves the test.
func noDNS() http.RoundTripper {
	dialer := &net.Dialer{Resolver: &net.Resolver{
		PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("no DNS server in this test")
		},
	}}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = dialer.DialContext
	return t
}

func TestCheckBadInput(t *testing.T) {
	const wrongToken = "ghp_WRONGTOKEN9876543210zyxwvu"
	g := newFakeGitHub(t)
	g.play(t, openPR())
	down := refusedURL(t)

	tests := []struct {
		name      string
		te        *testEnv
		args      []string
		fault     *githubfake.Fault
		transport http.RoundTripper
		wantCode  int
		wantErr   string // part of the one stderr line
	}{
		{name: "malformed reference", te: withToken(), args: []string{"octo/widgets"},
			wantCode: exitUsage, wantErr: "malformed pull request reference"},
		{name: "malformed URL", te: withToken(), args: []string{"https://github.com/octo/widgets/issues/7"},
			wantCode: exitUsage, wantErr: "not a pull request URL"},
		{name: "a URL on another host", te: withToken(), args: []string{"https://evil.example/octo/widgets/pull/7"},
			wantCode: exitUsage, wantErr: "https://evil.example/octo/widgets/pull/7 is on evil.example, but the configured GitHub is github.com"},
		{name: "a URL whose user name looks like the host", te: withToken(), args: []string{"https://github.com@evil.example/octo/widgets/pull/7"},
			wantCode: exitUsage, wantErr: "names the host evil.example (what precedes @ is a user name, not a host), but the configured GitHub is github.com"},
		{name: "an enterprise URL while serving github.com", te: withToken(), args: []string{"https://ghe.corp.example/octo/widgets/pull/7"},
			wantCode: exitUsage, wantErr: "is on ghe.corp.example, but the configured GitHub is github.com"},
		{name: "no reference", te: withToken(), args: []string{"--json"},
			wantCode: exitUsage, wantErr: "want one pull request"},
		{name: "two references", te: withToken(), args: []string{"octo/widgets#7", "octo/widgets#8"},
			wantCode: exitUsage, wantErr: "got 2 arguments"},
		{name: "unknown flag", te: withToken(), args: []string{"--bogus", "octo/widgets#7"},
			wantCode: exitUsage, wantErr: "unknown flag --bogus"},
		{name: "flag without its value", te: withToken(), args: []string{"octo/widgets#7", "--github-url"},
			wantCode: exitUsage, wantErr: "--github-url needs a value"},
		{name: "github-url not http(s)", te: withToken(), args: []string{"--github-url", "ftp://example.com", "octo/widgets#7"},
			wantCode: exitUsage, wantErr: "must start with https://"},
		{name: "github-url plain http off loopback", te: withToken(), args: []string{"--github-url", "http://ghe.example.com/api/v3", "octo/widgets#7"},
			wantCode: exitUsage, wantErr: "must use https"},
		{name: "github-url with the token in it", te: withToken(), args: []string{"--github-url", "https://x:" + testToken + "@ghe.example.com", "octo/widgets#7"},
			wantCode: exitUsage, wantErr: "must not contain credentials"},
		{name: "no token anywhere", te: &testEnv{}, args: []string{"octo/widgets#7"},
			wantCode: exitNoToken, wantErr: "no GitHub token found"},
		{name: "gh prints nothing", te: &testEnv{gh: func([]string) ([]byte, error) { return nil, nil }}, args: []string{"octo/widgets#7"},
			wantCode: exitNoToken, wantErr: "printed no usable token"},
		{name: "token refused (401)", te: &testEnv{vars: map[string]string{"GITHUB_TOKEN": wrongToken}}, args: []string{"octo/widgets#7"},
			wantCode: exitAuth, wantErr: "GitHub rejected the token (401)"},
		{name: "gh's token refused (401)", te: &testEnv{gh: func([]string) ([]byte, error) { return []byte(wrongToken), nil }}, args: []string{"octo/widgets#7"},
			wantCode: exitAuth, wantErr: "GitHub rejected the token (401)"},
		{name: "forbidden (403)", te: withToken(), args: []string{"octo/widgets#7"},
			fault:    &githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeForbidden},
			wantCode: exitAuth, wantErr: "GitHub refused access (403)"},
		{name: "no such repository (404)", te: withToken(), args: []string{"nobody/nothing#7"},
			wantCode: exitNotFound, wantErr: "not found on GitHub"},
		{name: "no such pull request (404)", te: withToken(), args: []string{"octo/widgets#999"},
			wantCode: exitNotFound, wantErr: "not found on GitHub"},
		{name: "connection refused", te: withToken(), args: []string{"--github-url", down, "octo/widgets#7"},
			wantCode: exitUnreachable, wantErr: "connection refused"},
		{name: "host name does not resolve", te: withToken(), args: []string{"--github-url", "https://ghe.example.invalid/api/v3", "octo/widgets#7"},
			transport: noDNS(), wantCode: exitUnreachable, wantErr: "GitHub is unavailable: dial tcp: lookup ghe.example.invalid"},
		{name: "GitHub down (503)", te: withToken(), args: []string{"octo/widgets#7"},
			fault:    &githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 503},
			wantCode: exitUnreachable, wantErr: "GitHub is unavailable: HTTP 503"},
		{name: "rate limited for an hour", te: withToken(), args: []string{"octo/widgets#7"},
			fault:    &githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), GraphQLError: githubfake.ErrTypeRateLimited, RateLimited: true, RetryAfter: time.Hour},
			wantCode: exitRateLimited, wantErr: "GitHub rate limit exceeded; retry after 1h0m0s"},
		{name: "secondary rate limit (429)", te: withToken(), args: []string{"octo/widgets#7"},
			fault:    &githubfake.Fault{Match: githubfake.MatchGraphQLQuery(), Status: 429, RetryAfter: 10 * time.Minute},
			wantCode: exitRateLimited, wantErr: "GitHub rate limit exceeded (secondary limit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fault != nil {
				h := g.InjectFault(*tt.fault)
				t.Cleanup(h.Remove)
			}
			args := []string{"check"}
			if !strings.Contains(strings.Join(tt.args, " "), "--github-url") {
				args = append(args, "--github-url", g.url)
			}
			args = append(args, tt.args...)
			res := runCLIWith(t, tt.te, tt.transport, args...)

			assert.Equal(t, tt.wantCode, res.code)
			assert.Empty(t, res.stdout, "stdout stays empty on error")
			assert.Regexp(t, `^prmonitor check: [^\n]+\n$`, res.stderr, "one line")
			assert.Contains(t, res.stderr, tt.wantErr)
			for _, secret := range []string{testToken, wrongToken} {
				assert.NotContains(t, res.stdout+res.stderr, secret)
			}
		})
	}
}
