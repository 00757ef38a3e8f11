package monitorwf

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// Source reads a pull request: one snapshot (ghclient.Client implements it).
type Source interface {
	Snapshot(ctx context.Context, ref prstatus.PRRef) (*prstatus.Snapshot, error)
}

// Effects performs the machine's server-side GitHub work and returns the machine's next input
// (the outcome, or the re-read head). It is the effects package's executor (mcpserver/effects:
// replies with markers, "did it land?" before a retry, the merge re-checked against what the user
// saw), the one the embedded server calls too. A non-nil error means GitHub gave no verdict (it
// asked to wait, or the time ran out): the action stays pending and runs again; GitHub's refusal
// is an Input whose outcome says so.
type Effects interface {
	Perform(ctx context.Context, ref prstatus.PRRef, req statemachine.ServerRequest, policy prstatus.ReviewerPolicy) (statemachine.Input, error)
}

// PerformInput is one server action to perform.
type PerformInput struct {
	Ref     prstatus.PRRef             `json:"ref"`
	Request statemachine.ServerRequest `json:"request"`
	Policy  prstatus.ReviewerPolicy    `json:"policy"`
}

// Error types the activities fail with (temporal.ApplicationError's type).
const (
	// ErrTypeRateLimited: GitHub asked to wait; retried after the time it named.
	ErrTypeRateLimited = "GitHubRateLimited"
	// ErrTypeRefused: no retry can help (no such pull request, the token cannot see it or was
	// rejected).
	ErrTypeRefused = "GitHubRefused"
	// ErrTypeNoEffects: this worker has no executor for server actions; retried until a worker
	// that has one picks the action up.
	ErrTypeNoEffects = "EffectsUnavailable"
)

// Activities are the monitor's GitHub calls. The token never passes through them: the worker's
// Source and Effects hold it, so it is in no workflow argument, result or history.
type Activities struct {
	Source  Source
	Effects Effects
}

// Register registers the activities under their names.
func (a *Activities) Register(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(a.ReadSnapshot, activity.RegisterOptions{Name: ActivityReadSnapshot})
	r.RegisterActivityWithOptions(a.Perform, activity.RegisterOptions{Name: ActivityPerform})
}

// ReadSnapshot reads the pull request, packed. The workflow derives the facts, on its own clock.
func (a *Activities) ReadSnapshot(ctx context.Context, ref prstatus.PRRef) (Packed, error) {
	s, err := a.Source.Snapshot(ctx, ref)
	if err != nil {
		return nil, classify(err)
	}
	return pack(s)
}

// Perform does one server action through Effects.
func (a *Activities) Perform(ctx context.Context, in PerformInput) (statemachine.Input, error) {
	if a.Effects == nil {
		return statemachine.Input{}, temporal.NewApplicationError(
			"this worker cannot do server-side GitHub work yet (no effects executor); the action waits for one that can",
			ErrTypeNoEffects)
	}
	out, err := a.Effects.Perform(ctx, in.Ref, in.Request, in.Policy)
	if err != nil {
		return statemachine.Input{}, classify(err)
	}
	return out, nil
}

// classify turns a GitHub error into the activity's failure: a rate limit is retried when GitHub
// said, a refusal is not retried, anything else is retried with the activity's backoff. The
// messages are ghclient's, which never carry the token.
func classify(err error) error {
	var rl *ghclient.RateLimitError
	switch {
	case errors.As(err, &rl):
		wait := rl.RetryAfter
		if wait <= 0 {
			wait = time.Minute
		}
		return temporal.NewApplicationErrorWithOptions(err.Error(), ErrTypeRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: wait})
	case errors.Is(err, ghclient.ErrUnauthorized), errors.Is(err, ghclient.ErrNotFound),
		errors.Is(err, ghclient.ErrNoToken), errors.Is(err, ghclient.ErrForbidden):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeRefused, nil)
	}
	return err
}
