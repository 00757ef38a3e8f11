package mcpserver

import (
	"context"

	"github.com/prmonitor/prmonitor/mcpserver/effects"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// GitHub is everything the server does on GitHub: the work of package effects, and what the
// watcher and pr_monitor_start_all read. *ghclient.Client implements it; tests may wrap it.
// Nothing here can close a pull request or delete a branch.
type GitHub interface {
	effects.GitHub
	// Fingerprints reads what changed on up to 100 pull requests in one request (the watcher).
	Fingerprints(ctx context.Context, refs []prstatus.PRRef) (ghclient.FingerprintBatch, error)
	// OpenPRs lists the viewer's open pull requests in one request (pr_monitor_start_all).
	OpenPRs(ctx context.Context, q ghclient.OpenPRsQuery) (ghclient.OpenPRs, error)
}

var _ GitHub = (*ghclient.Client)(nil)

// Connect returns the GitHub client, resolving the token on first use. A failure (no token, a bad
// URL) is reported to the tool call that needed GitHub, never at server start: the server must
// come up so the agent can read the error.
type Connect func(ctx context.Context) (GitHub, error)
