package effects

import (
	"context"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// GitHub is the GitHub work effects does. *ghclient.Client implements it; tests fake it. Nothing
// here can close a pull request or delete a branch.
type GitHub interface {
	// Snapshot reads the pull request (the merge re-check).
	Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error)
	HeadSHA(ctx context.Context, ref prstatus.PRRef) (string, error)
	PostReply(ctx context.Context, ref prstatus.PRRef, r ghclient.ReplyRequest) (ghclient.ReplyResult, error)
	ResolveThread(ctx context.Context, threadID string) error
	RequestReviews(ctx context.Context, ref prstatus.PRRef, reviewers []string) error
	RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error
	RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error
	JobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (ghclient.LogTail, error)
	Merge(ctx context.Context, ref prstatus.PRRef, m ghclient.MergeRequest) (ghclient.MergeResult, error)
	// EnableAutoMerge, DisableAutoMerge and Enqueue are merges GitHub does later by itself: only
	// the merge executor (merge.go) calls them.
	EnableAutoMerge(ctx context.Context, ref prstatus.PRRef, r ghclient.AutoMergeRequest) (ghclient.LaterResult, error)
	DisableAutoMerge(ctx context.Context, ref prstatus.PRRef) (ghclient.LaterResult, error)
	Enqueue(ctx context.Context, ref prstatus.PRRef, expectedHeadSHA string) (ghclient.LaterResult, error)
	UpdateBranch(ctx context.Context, ref prstatus.PRRef, expectedHeadSHA string) error
}

var _ GitHub = (*ghclient.Client)(nil)
