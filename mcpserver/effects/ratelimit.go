package effects

import (
	"context"
	"errors"
	"sync"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
)

// rateLimitRecorder passes every call through to GitHub and keeps the first rate limit any of them
// met, so that work that failed only because GitHub asked to wait is told apart from work GitHub
// refused: the first is postponed and done again, the second goes to the machine as a failure.
// A merge (or a queue entry, or auto-merge turned on) is not recorded (it passes through the
// embedded GitHub): one that fails for any reason is the user's to decide again, and only the merge
// executor calls it. Turning auto-merge off is recorded by the executor (recordRateLimit).
type rateLimitRecorder struct {
	GitHub
	mu        sync.Mutex
	rateLimit *ghclient.RateLimitError
}

// record keeps err's rate limit if it is the first, and returns err.
func (r *rateLimitRecorder) record(err error) error {
	var rl *ghclient.RateLimitError
	if errors.As(err, &rl) {
		r.mu.Lock()
		if r.rateLimit == nil {
			r.rateLimit = rl
		}
		r.mu.Unlock()
	}
	return err
}

// recordRateLimit keeps err's rate limit when gh records them (Do's recorder), and returns err: for
// a call that does not pass through the recorder's own methods (turning auto-merge off, which only
// the merge executor may call).
func recordRateLimit(gh GitHub, err error) error {
	if r, ok := gh.(*rateLimitRecorder); ok {
		return r.record(err)
	}
	return err
}

// first is the first rate limit met, nil when none was.
func (r *rateLimitRecorder) first() *ghclient.RateLimitError {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rateLimit
}

func (r *rateLimitRecorder) Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	s, err := r.GitHub.Snapshot(ctx, ref)
	return s, r.record(err)
}

func (r *rateLimitRecorder) HeadSHA(ctx context.Context, ref prstatus.PRRef) (string, error) {
	s, err := r.GitHub.HeadSHA(ctx, ref)
	return s, r.record(err)
}

func (r *rateLimitRecorder) PostReply(ctx context.Context, ref prstatus.PRRef, req ghclient.ReplyRequest) (ghclient.ReplyResult, error) {
	res, err := r.GitHub.PostReply(ctx, ref, req)
	return res, r.record(err)
}

func (r *rateLimitRecorder) ResolveThread(ctx context.Context, threadID string) error {
	return r.record(r.GitHub.ResolveThread(ctx, threadID))
}

func (r *rateLimitRecorder) RequestReviews(ctx context.Context, ref prstatus.PRRef, reviewers []string) error {
	return r.record(r.GitHub.RequestReviews(ctx, ref, reviewers))
}

func (r *rateLimitRecorder) RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return r.record(r.GitHub.RerunFailedJobs(ctx, ref, runID))
}

func (r *rateLimitRecorder) RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return r.record(r.GitHub.RerunWorkflow(ctx, ref, runID))
}

func (r *rateLimitRecorder) JobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (ghclient.LogTail, error) {
	t, err := r.GitHub.JobLogTail(ctx, ref, jobID, maxBytes)
	return t, r.record(err)
}

// UpdateBranch is recorded like every other write: a rate limit postpones the update, which runs
// again (GitHub did nothing with a request it rate-limited).
func (r *rateLimitRecorder) UpdateBranch(ctx context.Context, ref prstatus.PRRef, expectedHeadSHA string) error {
	return r.record(r.GitHub.UpdateBranch(ctx, ref, expectedHeadSHA))
}
