package effects

import (
	"context"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Work is one piece of GitHub work the machine asked for, with all it takes to do it.
type Work struct {
	// PR is the monitor's pull request.
	PR prstatus.PRRef
	// Request is what the machine asked for (its pending statemachine.ActionServer).
	Request statemachine.ServerRequest
	// Now is the caller's time: the merge re-check derives the pull request's facts at it.
	Now time.Time
	// Reviewers is whose reviews count when the merge re-check compares the pull request with
	// what the user was shown.
	Reviewers prstatus.ReviewerPolicy
}

// Outcome is how a piece of work ended.
type Outcome struct {
	// Input is the machine's next input: what GitHub did (done, refused, failed). Zero when
	// Postponed.
	Input statemachine.Input
	// Postponed: the work failed only because ctx ended (the caller's deadline) or GitHub asked to
	// wait. That is not GitHub's verdict on it: the machine is not told, the action stays pending
	// and is done again when allowed (doing it again is safe: see the package doc).
	Postponed bool
	// RateLimit is GitHub's request to wait, when that postponed the work (nil when ctx did).
	RateLimit *ghclient.RateLimitError
}

// Why says in one line why the work was postponed ("" when it was not).
func (o Outcome) Why() string {
	switch {
	case !o.Postponed:
		return ""
	case o.RateLimit != nil:
		return "GitHub asked to wait: " + text.Error(o.RateLimit)
	}
	return "the call's time ran out"
}

// Do performs w and returns its outcome. It keeps no state: everything it needs is in w, and
// everything it learnt is in the outcome.
func Do(ctx context.Context, gh GitHub, w Work) Outcome {
	rec := &rateLimitRecorder{GitHub: gh}
	in := execute(ctx, rec, w)
	if failed(in) && (ctx.Err() != nil || rec.first() != nil) {
		return Outcome{Postponed: true, RateLimit: rec.first()}
	}
	return Outcome{Input: in}
}

// failed reports whether a piece of work's outcome is a failure.
func failed(in statemachine.Input) bool {
	switch in.Kind {
	case statemachine.InputOutcome:
		return !in.Outcome.OK
	case statemachine.InputHead:
		return !in.Head.OK
	}
	return false
}
