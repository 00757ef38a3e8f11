package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/mcpserver/effects"
	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/statemachine"
)

// gitHubWork is monitorwf.Effects over the effects package, the executor the embedded server
// uses too, with the worker's current client. Work GitHub gave no verdict on (it asked to wait,
// or the activity's time ran out) is an error, so Temporal retries the activity; a rate limit
// keeps its type, so the retry waits as long as GitHub asked.
type gitHubWork struct {
	gh     GitHub
	now    func() time.Time
	budget *budget
}

func (g gitHubWork) Perform(ctx context.Context, ref prstatus.PRRef, req statemachine.ServerRequest, policy prstatus.ReviewerPolicy) (statemachine.Input, error) {
	release, err := g.budget.admit()
	if err != nil {
		return statemachine.Input{}, err
	}
	defer release()
	c, err := g.gh(ctx)
	if err != nil {
		return statemachine.Input{}, err
	}
	out := effects.Do(ctx, c, effects.Work{PR: ref, Request: req, Now: g.now(), Reviewers: policy})
	g.budget.observeClient(c)
	switch {
	case !out.Postponed:
		return out.Input, nil
	case out.RateLimit != nil:
		return statemachine.Input{}, out.RateLimit
	}
	return statemachine.Input{}, fmt.Errorf("%s postponed: %s", req.Describe, out.Why())
}
