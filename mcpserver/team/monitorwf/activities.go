package monitorwf

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

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
	// ErrTypeOverBudget: the worker's share of the token's hourly points is spent (OverBudget).
	// A read is not retried (the monitor reads again later, and stays free meanwhile); server
	// work is retried when the hour resets.
	ErrTypeOverBudget = "OverBudget"
)

// OverBudget is an activity's refusal to spend more of the token's GitHub points this hour: the
// worker's --budget share of GitHub's hourly limit is spent. Nothing was sent.
type OverBudget struct {
	Spent, Allowed int
	Until          time.Time
}

func (e *OverBudget) Error() string {
	return fmt.Sprintf("prmonitor's share of the token's GitHub points is spent (%d of the %d it may use this hour); nothing is sent before %s",
		e.Spent, e.Allowed, e.Until.UTC().Format("15:04:05 UTC"))
}

// Activities are the monitor's GitHub calls. The token never passes through them: the worker's
// Source and Effects hold it, so it is in no workflow argument, result or history.
type Activities struct {
	Source  Source
	Effects Effects
	// Search finds a user's open pull requests (pr_monitor_start_all); nil refuses searches.
	Search Searcher
}

// Register registers the activities under their names.
func (a *Activities) Register(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(a.ReadSnapshot, activity.RegisterOptions{Name: ActivityReadSnapshot})
	r.RegisterActivityWithOptions(a.Perform, activity.RegisterOptions{Name: ActivityPerform})
	r.RegisterActivityWithOptions(a.SearchOpenPRs, activity.RegisterOptions{Name: ActivitySearch})
}

// RegisterWorkflows registers the workflows under their names: the monitor and the search.
func RegisterWorkflows(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(Monitor, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterWorkflowWithOptions(FindOpenPRs, workflow.RegisterOptions{Name: WorkflowFindOpenPRs})
}

// heartbeatEvery is how often a running activity tells Temporal its worker is alive; with the
// activities' HeartbeatTimeout (github.go) a worker that dies mid-call has its call retried by
// another within seconds, not at the end of the call's whole timeout.
const heartbeatEvery = 5 * time.Second

// heartbeat records the activity's heartbeat until the returned function is called.
func heartbeat(ctx context.Context) func() {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// ReadSnapshot reads the pull request, packed. The workflow derives the facts, on its own clock.
func (a *Activities) ReadSnapshot(ctx context.Context, ref prstatus.PRRef) (Packed, error) {
	defer heartbeat(ctx)()
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
	defer heartbeat(ctx)()
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
	var over *OverBudget
	switch {
	case errors.As(err, &over):
		return temporal.NewApplicationErrorWithOptions(err.Error(), ErrTypeOverBudget,
			temporal.ApplicationErrorOptions{NextRetryDelay: max(time.Until(over.Until), time.Second)})
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
