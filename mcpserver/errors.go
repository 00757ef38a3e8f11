package mcpserver

import (
	"errors"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// githubCause explains a GitHub failure in user terms.
func githubCause(err error) string {
	switch {
	case errors.Is(err, ghclient.ErrNoToken):
		return text.Error(err) // it says where the token was looked for and how to provide one
	case errors.Is(err, ghclient.ErrUnauthorized):
		return "GitHub rejected the token (401): check GITHUB_TOKEN or GH_TOKEN"
	case errors.Is(err, ghclient.ErrNotFound):
		return "no such pull request, or the token cannot see it (404)"
	case errors.Is(err, ghclient.ErrRateLimited):
		return "GitHub rate limit: " + text.Error(err)
	case errors.Is(err, ghclient.ErrUnavailable):
		return "GitHub is unreachable: " + text.Error(err)
	}
	return text.Error(err)
}

// fatalGitHub reports whether a GitHub error cannot heal by waiting: a bad token, a missing PR.
func fatalGitHub(err error) bool {
	return errors.Is(err, ghclient.ErrUnauthorized) || errors.Is(err, ghclient.ErrNotFound) ||
		errors.Is(err, ghclient.ErrNoToken) || errors.Is(err, ghclient.ErrForbidden)
}
