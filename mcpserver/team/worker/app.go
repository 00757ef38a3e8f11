package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/bradleyfalzon/ghinstallation/v2"

	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// App is a GitHub App installation the worker acts as: its installation tokens (an hour each)
// come from ghinstallation, which signs the App's JWT and renews the token a minute before it
// expires. The worker's own client is rebuilt on a new token and shares one rate-limit gate.
type App struct {
	AppID, InstallationID int64
	// PrivateKey is the App's PEM private key (from --app-private-key FILE).
	PrivateKey []byte
	// RESTURL is the API root the token is asked of (GitHub Enterprise Server's /api/v3).
	RESTURL string
	// Transport carries the token requests (nil: http.DefaultTransport).
	Transport http.RoundTripper
	// NewClient builds the GitHub client for a token.
	NewClient func(ghclient.Token) (*ghclient.Client, error)
}

// GitHub returns the App's GitHub: each call hands the client of the current installation token.
func (a App) GitHub() (GitHub, error) {
	base := a.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	itr, err := ghinstallation.New(base, a.AppID, a.InstallationID, a.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("GitHub App %d: the private key: %w", a.AppID, err)
	}
	if a.RESTURL != "" {
		itr.BaseURL = a.RESTURL
	}
	var (
		mu     sync.Mutex
		token  string
		client *ghclient.Client
	)
	return func(ctx context.Context) (*ghclient.Client, error) {
		tok, err := itr.Token(ctx)
		if err != nil {
			return nil, appError(a.AppID, a.InstallationID, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if client == nil || tok != token {
			c, err := a.NewClient(ghclient.NewToken(tok))
			if err != nil {
				return nil, err
			}
			client, token = c, tok
		}
		return client, nil
	}, nil
}

// appError classifies a failure to get an installation token: GitHub's refusal (a wrong key, a
// suspended App, an installation that is gone) is not retried; anything else is.
func appError(app, inst int64, err error) error {
	var he *ghinstallation.HTTPError
	kind := ghclient.ErrUnavailable
	if errors.As(err, &he) && he.Response != nil {
		switch he.Response.StatusCode {
		case http.StatusUnauthorized:
			kind = ghclient.ErrUnauthorized
		case http.StatusForbidden:
			kind = ghclient.ErrForbidden
		case http.StatusNotFound:
			kind = ghclient.ErrNotFound
		}
	}
	return fmt.Errorf("%w: GitHub App %d, installation %d: no installation token: %v", kind, app, inst, err)
}
