package ghclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolveEndpoints(t *testing.T) {
	tests := []struct {
		name     string
		env      map[string]string
		flag     string
		wantREST string
		wantGQL  string
		wantHost string
		wantErr  string
	}{
		{name: "default github.com", wantREST: "https://api.github.com", wantGQL: "https://api.github.com/graphql", wantHost: "github.com"},
		{name: "trailing slash trimmed", flag: "https://api.github.com/", wantREST: "https://api.github.com", wantGQL: "https://api.github.com/graphql", wantHost: "github.com"},
		{name: "GHES from flag", flag: "https://ghe.example.com/api/v3", wantREST: "https://ghe.example.com/api/v3", wantGQL: "https://ghe.example.com/api/graphql", wantHost: "ghe.example.com"},
		{name: "GHES from env", env: map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3/"}, wantREST: "https://ghe.example.com/api/v3", wantGQL: "https://ghe.example.com/api/graphql", wantHost: "ghe.example.com"},
		{name: "flag beats env", env: map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3"}, flag: "http://127.0.0.1:8080", wantREST: "http://127.0.0.1:8080", wantGQL: "http://127.0.0.1:8080/graphql", wantHost: "127.0.0.1:8080"},
		{name: "fake on loopback", flag: "http://127.0.0.1:41234", wantREST: "http://127.0.0.1:41234", wantGQL: "http://127.0.0.1:41234/graphql", wantHost: "127.0.0.1:41234"},
		{name: "fake on localhost with path", flag: "http://localhost:9/gh", wantREST: "http://localhost:9/gh", wantGQL: "http://localhost:9/gh/graphql", wantHost: "localhost:9"},
		{name: "IPv6 loopback", flag: "http://[::1]:9", wantREST: "http://[::1]:9", wantGQL: "http://[::1]:9/graphql", wantHost: "[::1]:9"},
		{name: "GHE.com data residency", flag: "https://api.octo.ghe.com", wantREST: "https://api.octo.ghe.com", wantGQL: "https://api.octo.ghe.com/graphql", wantHost: "octo.ghe.com"},
		{
			name:     "GITHUB_GRAPHQL_URL overrides the derived URL",
			env:      map[string]string{"GITHUB_API_URL": "https://ghe.example.com/api/v3", "GITHUB_GRAPHQL_URL": "https://gql.example.com/graphql"},
			wantREST: "https://ghe.example.com/api/v3", wantGQL: "https://gql.example.com/graphql", wantHost: "ghe.example.com",
		},
		{
			name:     "GITHUB_GRAPHQL_URL overrides with the default REST root",
			env:      map[string]string{"GITHUB_GRAPHQL_URL": "https://api.github.com/graphql"},
			wantREST: "https://api.github.com", wantGQL: "https://api.github.com/graphql", wantHost: "github.com",
		},
		{
			name:     "an explicit flag ignores GITHUB_GRAPHQL_URL (Actions sets it for every job)",
			env:      map[string]string{"GITHUB_GRAPHQL_URL": "https://api.github.com/graphql"},
			flag:     "http://127.0.0.1:5000",
			wantREST: "http://127.0.0.1:5000", wantGQL: "http://127.0.0.1:5000/graphql", wantHost: "127.0.0.1:5000",
		},
		{name: "not a URL", flag: "api.github.com", wantErr: `must start with https://`},
		{name: "bad scheme", flag: "ftp://api.github.com", wantErr: `must start with https://`},
		{name: "no host", flag: "https:///api", wantErr: "has no host"},
		{name: "plain http off loopback", flag: "http://ghe.example.com/api/v3", wantErr: "must use https"},
		{name: "query string", flag: "https://api.github.com?x=1", wantErr: "query or fragment"},
		{name: "fragment", env: map[string]string{"GITHUB_API_URL": "https://api.github.com#x"}, wantErr: "GITHUB_API_URL"},
		{name: "bad GraphQL URL", env: map[string]string{"GITHUB_GRAPHQL_URL": "nope"}, wantErr: "GITHUB_GRAPHQL_URL"},
		{name: "unparseable", flag: "https://exa mple.com/%zz", wantErr: "is not a URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep, err := ResolveEndpoints(env(tt.env), tt.flag)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrBadURL)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantREST, ep.REST)
			assert.Equal(t, tt.wantGQL, ep.GraphQL)
			assert.Equal(t, tt.wantHost, ep.Host())
		})
	}
}

func TestResolveEndpointsNeverEchoesCredentials(t *testing.T) {
	_, err := ResolveEndpoints(env(nil), "https://user:"+testToken+"@ghe.example.com/api/v3")
	require.ErrorIs(t, err, ErrBadURL)
	assert.NotContains(t, err.Error(), testToken)
	assert.Contains(t, err.Error(), "must not contain credentials")
}

func TestGraphQLURLFor(t *testing.T) {
	assert.Equal(t, "https://api.github.com/graphql", GraphQLURLFor("https://api.github.com"))
	assert.Equal(t, "https://h/api/graphql", GraphQLURLFor("https://h/api/v3/"))
	assert.Equal(t, "http://127.0.0.1:1/graphql", GraphQLURLFor("http://127.0.0.1:1"))
}

// The web host is known from the REST root only for the shapes GitHub's own roots have.
func TestWebHostIsKnownOnlyFromGitHubsOwnShapes(t *testing.T) {
	tests := []struct {
		rest, host string
		ok         bool
	}{
		{"https://api.github.com", "github.com", true},
		{"https://API.GitHub.com/", "github.com", true},
		{"https://api.acme.ghe.com", "acme.ghe.com", true},
		{"https://ghe.example.com/api/v3", "ghe.example.com", true},
		{"https://ghe.example.com:8443/api/v3/", "ghe.example.com:8443", true},
		{"https://proxy.example.com/github", "", false},
		{"https://api.github.com/proxied", "", false},
		{"http://127.0.0.1:8080", "", false},
		{"http://127.0.0.1:8080/api/v3", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.rest, func(t *testing.T) {
			host, ok := Endpoints{REST: tt.rest}.WebHost()
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.host, host)
		})
	}
}
