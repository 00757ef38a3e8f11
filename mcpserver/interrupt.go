package mcpserver

import (
	"context"
	"errors"
	"sync"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// noting passes every call through to GitHub and keeps the first rate limit any of them met, so
// that a server action that failed only because GitHub asked to wait is told apart from one
// GitHub refused: the first waits and runs again, the second goes to the machine as a failure.
// A merge is not noted (it passes through the embedded GitHub): one that fails for any reason is
// the user's to decide again, and only the merge executor calls Merge.
type noting struct {
	GitHub
	mu        sync.Mutex
	rateLimit *ghclient.RateLimitError
}

func (n *noting) note(err error) error {
	var rl *ghclient.RateLimitError
	if errors.As(err, &rl) {
		n.mu.Lock()
		if n.rateLimit == nil {
			n.rateLimit = rl
		}
		n.mu.Unlock()
	}
	return err
}

func (n *noting) limited() *ghclient.RateLimitError {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rateLimit
}

func (n *noting) Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error) {
	s, err := n.GitHub.Snapshot(ctx, ref)
	return s, n.note(err)
}

func (n *noting) HeadSHA(ctx context.Context, ref prstatus.PRRef) (string, error) {
	s, err := n.GitHub.HeadSHA(ctx, ref)
	return s, n.note(err)
}

func (n *noting) PostReply(ctx context.Context, ref prstatus.PRRef, r ghclient.ReplyRequest) (ghclient.ReplyResult, error) {
	res, err := n.GitHub.PostReply(ctx, ref, r)
	return res, n.note(err)
}

func (n *noting) ResolveThread(ctx context.Context, threadID string) error {
	return n.note(n.GitHub.ResolveThread(ctx, threadID))
}

func (n *noting) RequestReviews(ctx context.Context, ref prstatus.PRRef, reviewers []string) error {
	return n.note(n.GitHub.RequestReviews(ctx, ref, reviewers))
}

func (n *noting) RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return n.note(n.GitHub.RerunFailedJobs(ctx, ref, runID))
}

func (n *noting) RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return n.note(n.GitHub.RerunWorkflow(ctx, ref, runID))
}

func (n *noting) JobLogTail(ctx context.Context, ref prstatus.PRRef, jobID int64, maxBytes int) (ghclient.LogTail, error) {
	t, err := n.GitHub.JobLogTail(ctx, ref, jobID, maxBytes)
	return t, n.note(err)
}

// failed reports whether a server action's outcome is a failure.
func failed(in statemachine.Input) bool {
	switch in.Kind {
	case statemachine.InputOutcome:
		return !in.Outcome.OK
	case statemachine.InputHead:
		return !in.Head.OK
	}
	return false
}
