package mcpserver

import (
	"errors"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// oneLine renders an error as a single line for users and agents (text.Error).
func oneLine(err error) string { return text.Error(err) }

// githubCause explains a GitHub failure in user terms.
func githubCause(err error) string {
	switch {
	case errors.Is(err, ghclient.ErrNoToken):
		return oneLine(err) // it says where the token was looked for and how to provide one
	case errors.Is(err, ghclient.ErrUnauthorized):
		return "GitHub rejected the token (401): check GITHUB_TOKEN or GH_TOKEN"
	case errors.Is(err, ghclient.ErrNotFound):
		return "no such pull request, or the token cannot see it (404)"
	case errors.Is(err, ghclient.ErrRateLimited):
		return "GitHub rate limit: " + oneLine(err)
	case errors.Is(err, ghclient.ErrUnavailable):
		return "GitHub is unreachable: " + oneLine(err)
	}
	return oneLine(err)
}

// fatalGitHub reports whether a GitHub error cannot heal by waiting: a bad token, a missing PR.
func fatalGitHub(err error) bool {
	return errors.Is(err, ghclient.ErrUnauthorized) || errors.Is(err, ghclient.ErrNotFound) ||
		errors.Is(err, ghclient.ErrNoToken) || errors.Is(err, ghclient.ErrForbidden)
}
