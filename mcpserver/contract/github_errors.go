package contract

import (
	"errors"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// GitHubCause explains a GitHub failure in user terms.
func GitHubCause(err error) string {
	switch {
	case errors.Is(err, ghclient.ErrNoToken):
		return text.Error(err) // it says where the token was looked for and how to provide one
	case errors.Is(err, ghclient.ErrUnauthorized):
		return "GitHub rejected the token (401): check GITHUB_TOKEN or GH_TOKEN"
	case errors.Is(err, ghclient.ErrNotFound):
		return "no such pull request, or the token cannot see it (404)"
	case errors.Is(err, ghclient.ErrRateLimited):
		return SayOnce("GitHub rate limit: ", ghclient.ErrRateLimited, err)
	case errors.Is(err, ghclient.ErrUnavailable):
		return SayOnce("GitHub is unreachable: ", ghclient.ErrUnavailable, err)
	}
	return text.Error(err)
}

// SayOnce is err's text, after lead only when the text does not already say what kind names
// ("GitHub is unavailable"): a message says a thing once.
func SayOnce(lead string, kind, err error) string {
	msg := text.Error(err)
	if strings.Contains(msg, kind.Error()) {
		return msg
	}
	return lead + msg
}

// FatalGitHub reports whether a GitHub error cannot heal by waiting: a bad token, a missing PR.
func FatalGitHub(err error) bool {
	return errors.Is(err, ghclient.ErrUnauthorized) || errors.Is(err, ghclient.ErrNotFound) ||
		errors.Is(err, ghclient.ErrNoToken) || errors.Is(err, ghclient.ErrForbidden)
}
