package ghclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/prmonitor/prmonitor/prstatus"
)

// The server-side GitHub work (DESIGN §7, issue 5). Contract first; the bodies are being written.

// ErrMergeRefused wraps every *MergeRefusedError.
var ErrMergeRefused = errors.New("merge refused")

// ErrHeadMoved: the merge was not done because the head is no longer the one the user approved.
var ErrHeadMoved = errors.New("the head moved since the merge was chosen")

// MergeRefusedError is GitHub refusing a merge for a reason the user can act on (branch policy,
// required reviews or checks, not mergeable). Reason is GitHub's message, one line.
type MergeRefusedError struct{ Reason string }

func (e *MergeRefusedError) Error() string { return "merge refused: " + e.Reason }

// Is makes errors.Is(err, ErrMergeRefused) true.
func (e *MergeRefusedError) Is(target error) bool { return target == ErrMergeRefused }

// ReplyRequest is a reply to a review thread. Body is the text without the marker; the marker is
// appended as a hidden comment.
type ReplyRequest struct {
	ThreadID  string
	ReplyToID int64
	Body      string
	Marker    prstatus.Marker
}

// ReplyResult says what happened. Already is true when a reply carrying the same marker was found
// and nothing was posted.
type ReplyResult struct {
	Already   bool
	CommentID int64
	URL       string
}

// LogTail is the end of one job's log.
type LogTail struct {
	Text      string
	Truncated bool
	Bytes     int64
}

// MergeRequest is the user's merge, pinned to the head they saw.
type MergeRequest struct {
	Method          string // merge, squash or rebase
	ExpectedHeadSHA string
}

// MergeResult is a successful merge.
type MergeResult struct{ SHA string }

var errNotYet = errors.New("not implemented yet")

// HeadSHA re-reads the pull request's head commit with one small GraphQL query.
func (c *Client) HeadSHA(ctx context.Context, ref prstatus.PRRef) (string, error) {
	return "", fmt.Errorf("head of %s: %w", ref, errNotYet)
}

// PostReply replies to a review thread through REST, at most once per marker.
func (c *Client) PostReply(ctx context.Context, ref prstatus.PRRef, r ReplyRequest) (ReplyResult, error) {
	return ReplyResult{}, fmt.Errorf("reply on %s: %w", ref, errNotYet)
}

// ResolveThread resolves a review thread (GraphQL). An already resolved thread is success.
func (c *Client) ResolveThread(ctx context.Context, threadID string) error {
	return fmt.Errorf("resolve %s: %w", threadID, errNotYet)
}

// RequestReviews asks reviewers (logins; teams as "org/slug") to review again.
func (c *Client) RequestReviews(ctx context.Context, ref prstatus.PRRef, reviewers []string) error {
	return fmt.Errorf("request reviews on %s: %w", ref, errNotYet)
}

// RerunFailedJobs re-runs the failed jobs of one GitHub Actions workflow run.
func (c *Client) RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return fmt.Errorf("re-run %d: %w", runID, errNotYet)
}

// RerunWorkflow re-runs a whole GitHub Actions workflow run.
func (c *Client) RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return fmt.Errorf("re-run %d: %w", runID, errNotYet)
}

// JobLogTail fetches the last maxBytes of a job's log.
func (c *Client) JobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (LogTail, error) {
	return LogTail{}, fmt.Errorf("log of job %d: %w", jobID, errNotYet)
}

// Merge merges the pull request, only at the expected head.
func (c *Client) Merge(ctx context.Context, ref prstatus.PRRef, m MergeRequest) (MergeResult, error) {
	return MergeResult{}, fmt.Errorf("merge %s: %w", ref, errNotYet)
}
