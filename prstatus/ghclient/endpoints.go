package ghclient

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// DefaultRESTURL is GitHub.com's REST API root.
const DefaultRESTURL = "https://api.github.com"

// ErrBadURL is wrapped by every endpoint validation error.
var ErrBadURL = errors.New("invalid GitHub API URL")

// Endpoints are the two roots prmonitor calls: REST (go-github) and GraphQL (githubv4).
type Endpoints struct {
	// REST is the REST API root without a trailing slash, e.g. https://api.github.com or
	// https://ghe.example.com/api/v3.
	REST string
	// GraphQL is the GraphQL endpoint, e.g. https://api.github.com/graphql or
	// https://ghe.example.com/api/graphql.
	GraphQL string
}

// ResolveEndpoints finds the API endpoints from the --github-url flag value (may be empty) and
// the environment:
//
//   - REST root: the flag, else GITHUB_API_URL, else https://api.github.com.
//   - GraphQL: GITHUB_GRAPHQL_URL when the REST root did not come from the flag, else derived
//     from the REST root (see GraphQLURLFor). An explicit --github-url wins over both environment
//     variables because GitHub Actions sets them to github.com for every job, which must not send
//     a run aimed at a fake or a GHES host to github.com.
//
// Both URLs must be absolute https URLs without credentials, query or fragment; plain http is
// accepted only for loopback hosts (a local fake), so a token is never sent in clear text.
func ResolveEndpoints(getenv func(string) string, flagURL string) (Endpoints, error) {
	rest, source := strings.TrimSpace(flagURL), "--github-url"
	if rest == "" {
		rest, source = strings.TrimSpace(getenv("GITHUB_API_URL")), "GITHUB_API_URL"
	}
	if rest == "" {
		rest, source = DefaultRESTURL, "default"
	}
	restURL, err := parseEndpoint(source, rest)
	if err != nil {
		return Endpoints{}, err
	}
	ep := Endpoints{REST: restURL.String()}
	if gql := strings.TrimSpace(getenv("GITHUB_GRAPHQL_URL")); gql != "" && source != "--github-url" {
		u, err := parseEndpoint("GITHUB_GRAPHQL_URL", gql)
		if err != nil {
			return Endpoints{}, err
		}
		ep.GraphQL = u.String()
		return ep, nil
	}
	ep.GraphQL = GraphQLURLFor(ep.REST)
	return ep, nil
}

// GraphQLURLFor derives the GraphQL endpoint from a valid REST root:
// https://api.github.com → https://api.github.com/graphql; https://HOST/api/v3 →
// https://HOST/api/graphql (GitHub Enterprise Server); anything else → root + /graphql.
func GraphQLURLFor(rest string) string {
	rest = strings.TrimRight(rest, "/")
	if base, ok := strings.CutSuffix(rest, "/api/v3"); ok {
		return base + "/api/graphql"
	}
	return rest + "/graphql"
}

// Host returns the web host of the GitHub instance, as `gh auth token --hostname` expects it:
// github.com for api.github.com, the bare host for GitHub Enterprise Cloud with data residency
// (api.SUBDOMAIN.ghe.com → SUBDOMAIN.ghe.com), otherwise the REST root's host (with its port).
func (e Endpoints) Host() string {
	u, err := url.Parse(e.REST)
	if err != nil || u.Host == "" {
		return ""
	}
	h := strings.ToLower(u.Host)
	switch {
	case h == "api.github.com":
		return "github.com"
	case strings.HasPrefix(h, "api.") && strings.HasSuffix(h, ".ghe.com"):
		return strings.TrimPrefix(h, "api.")
	}
	return h
}

// WebHost is the web host of the GitHub instance when the REST root's shape says it for certain:
// github.com for https://api.github.com, SUBDOMAIN.ghe.com for https://api.SUBDOMAIN.ghe.com, HOST
// for GitHub Enterprise Server's https://HOST/api/v3. Any other root (a proxy, a local fake) says
// nothing of the web host: ok is false, and only GitHub's own answer (a pull request's URL) tells.
func (e Endpoints) WebHost() (host string, ok bool) {
	u, err := url.Parse(e.REST)
	if err != nil || u.Host == "" || u.Scheme != "https" {
		return "", false
	}
	h := strings.ToLower(u.Host)
	switch path := strings.TrimRight(u.Path, "/"); {
	case path == "" && (h == "api.github.com" || strings.HasPrefix(h, "api.") && strings.HasSuffix(h, ".ghe.com")):
		return e.Host(), true
	case path == "/api/v3":
		return h, true
	}
	return "", false
}

// validURL checks one endpoint URL the way ResolveEndpoints does. what names it in the error.
func validURL(what, raw string) (string, error) {
	u, err := parseEndpoint(what, raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// parseEndpoint validates raw and returns it without a trailing slash. Errors name the source and
// never echo credentials embedded in the URL.
func parseEndpoint(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is not a URL", ErrBadURL, what)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %s must not contain credentials; pass the token in GITHUB_TOKEN", ErrBadURL, what)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%w: %s %q must start with https://", ErrBadURL, what, raw)
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %s %q has no host", ErrBadURL, what, raw)
	}
	if u.Scheme == "http" && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("%w: %s %q must use https (plain http is allowed only on a loopback host)", ErrBadURL, what, raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, fmt.Errorf("%w: %s %q must not have a query or fragment", ErrBadURL, what, raw)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
