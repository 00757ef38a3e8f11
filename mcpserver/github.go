package mcpserver

import (
	"context"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// GitHub is everything the server does on GitHub. *ghclient.Client implements it; tests may wrap
// it. Nothing here can close a pull request or delete a branch.
type GitHub interface {
	Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error)
	HeadSHA(ctx context.Context, ref prstatus.PRRef) (string, error)
	PostReply(ctx context.Context, ref prstatus.PRRef, r ghclient.ReplyRequest) (ghclient.ReplyResult, error)
	ResolveThread(ctx context.Context, threadID string) error
	RequestReviews(ctx context.Context, ref prstatus.PRRef, reviewers []string) error
	RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error
	RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error
	JobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (ghclient.LogTail, error)
	Merge(ctx context.Context, ref prstatus.PRRef, m ghclient.MergeRequest) (ghclient.MergeResult, error)
	UpdateBranch(ctx context.Context, ref prstatus.PRRef, expectedHeadSHA string) error
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
