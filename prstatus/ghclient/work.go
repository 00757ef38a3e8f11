package ghclient

import (
	"errors"

	"github.com/prmonitor/prmonitor/prstatus"
)

// The server-side GitHub work (docs/architecture.md#talking-to-github): the types of the contract the MCP server calls. The
// methods live one per file: head.go (HeadSHA), reply.go (PostReply), resolve.go (ResolveThread),
// reviewers.go (RequestReviews), rerun.go (RerunFailedJobs, RerunWorkflow), joblog.go (JobLogTail)
// and merge.go (Merge). None of them can close a pull request or delete a branch.

// ErrMergeRefused wraps every *MergeRefusedError.
var ErrMergeRefused = errors.New("merge refused")

// ErrHeadMoved means the merge was not done because the head is no longer the one the user
// approved.
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

// ReplyResult says what happened. Already is true when a reply of ours already answered the
// thread's newest comments and nothing was posted.
type ReplyResult struct {
	Already   bool
	CommentID int64
	URL       string
	// Recovered is true when this call's POST failed without a usable answer (a 5xx, a dropped
	// connection) and the reply was then found in the thread: it landed once, and was not re-sent.
	Recovered bool
}

// LogTail is the end of one job's log.
type LogTail struct {
	// Text is the tail, cut at a line boundary, without ANSI escapes and Actions timestamps, and
	// sanitised: untrusted text.
	Text string
	// Truncated is true when the start of the log was cut off.
	Truncated bool
	// Bytes is the size of the whole log as GitHub stores it.
	Bytes int64
}

// MergeRequest is the user's merge, pinned to the head they saw.
type MergeRequest struct {
	Method          string // merge, squash or rebase
	ExpectedHeadSHA string
}

// MergeResult is a successful merge.
type MergeResult struct {
	// SHA is the merge commit.
	SHA string
	// Recovered is true when the merge's answer was lost (a 5xx, a dropped connection) and the pull
	// request, read again, was merged at the expected head.
	Recovered bool
}
