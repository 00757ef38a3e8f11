package effects

import (
	"context"
	"errors"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// mergeAction performs w if it is a merge. This file is the only place prmonitor merges a pull
// request (a static test keeps it so); the state machine asks for a merge only from the user's
// explicit merge choice in the ready flow, pinned to what the user was shown.
func mergeAction(ctx context.Context, gh GitHub, w Work) (statemachine.Outcome, bool) {
	if w.Request.Kind != statemachine.ServerMerge {
		return statemachine.Outcome{}, false
	}
	return performMerge(ctx, gh, w.PR, w.Request, w.Now, w.Reviewers), true
}

// performMerge re-reads the pull request (one snapshot) and merges at the expected head only if it
// is still what the user was shown when they chose to merge: the same head, no new request for
// changes, no new failing check, no new unresolved thread. Otherwise nothing is merged and the
// outcome says what changed, for the user to be asked again. An "administrator bypass" merge
// (offered only when the user configured it) is the same call: GitHub applies a bypass to
// accounts allowed one.
func performMerge(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest, now time.Time, policy prstatus.ReviewerPolicy) statemachine.Outcome {
	out := statemachine.Outcome{Kind: statemachine.ServerMerge}
	switch {
	case req.ExpectedHeadSHA == "":
		out.Error = "refusing to merge without the head the user approved"
		return out
	case req.Shown == nil || req.Shown.Head != req.ExpectedHeadSHA:
		out.Error = "refusing to merge without what the user was shown"
		return out
	}
	snap, err := gh.Snapshot(ctx, ref)
	if err != nil {
		out.Error = "could not re-read the pull request before merging: " + oneLine(err)
		return out
	}
	f := prstatus.DeriveFor(snap, now, policy)
	if changed := req.Shown.Changes(&f); len(changed) > 0 {
		view := prstatus.ViewForMerge(&f)
		out.Changed, out.Shown = changed, &view
		return out
	}
	res, err := gh.Merge(ctx, ref, ghclient.MergeRequest{Method: req.MergeMethod, ExpectedHeadSHA: req.ExpectedHeadSHA})
	var refused *ghclient.MergeRefusedError
	switch {
	case err == nil:
		out.OK, out.SHA = true, res.SHA
	case errors.Is(err, ghclient.ErrHeadMoved):
		out.HeadMoved, out.Error = true, oneLine(err)
	case errors.As(err, &refused):
		out.Refused, out.Error = true, refused.Reason
	default:
		out.Error = oneLine(err)
	}
	return out
}
