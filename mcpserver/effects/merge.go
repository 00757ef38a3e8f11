package effects

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// mergeAction performs w if it is a merge: merging now, a merge-queue entry, turning auto-merge on
// (GitHub merges later by itself), or turning it off again. This file is the only place prmonitor
// sends any of them (a static test keeps it so); the state machine asks for the first three only
// from the user's explicit choice in the ready flow, pinned to what the user was shown.
func mergeAction(ctx context.Context, gh GitHub, w Work) (statemachine.Outcome, bool) {
	switch w.Request.Kind {
	case statemachine.ServerMerge, statemachine.ServerEnqueue, statemachine.ServerEnableAutoMerge:
		return performMerge(ctx, gh, w.PR, w.Request, w.Now, w.Reviewers), true
	case statemachine.ServerDisableAutoMerge:
		return disableAutoMerge(ctx, gh, w.PR), true
	}
	return statemachine.Outcome{}, false
}

// performMerge re-reads the pull request (one snapshot) and merges at the expected head (adds it
// to the merge queue, or turns auto-merge on) only if it is still what the user was shown when
// they chose: the same head, no new request for changes, no dismissed approval, no new failing
// check, no new unresolved thread. Otherwise nothing is sent and the outcome says what changed,
// for the user to be asked again. An "administrator bypass" merge (offered only when the user
// configured it) is the same call: GitHub applies a bypass to accounts allowed one.
func performMerge(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest, now time.Time, policy prstatus.ReviewerPolicy) statemachine.Outcome {
	out := statemachine.Outcome{Kind: req.Kind}
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
		out.Error = "could not re-read the pull request before merging: " + text.Error(err)
		return out
	}
	f := prstatus.DeriveFor(snap, now, policy)
	if changed := req.Shown.Changes(&f); len(changed) > 0 {
		view := prstatus.ViewForMerge(&f)
		out.Changed, out.Shown = changed, &view
		return out
	}
	err = send(ctx, gh, ref, req, &out)
	var refused *ghclient.MergeRefusedError
	switch {
	case err == nil:
		out.OK = true
	case errors.Is(err, ghclient.ErrHeadMoved):
		out.HeadMoved, out.Error = true, text.Error(err)
	case errors.As(err, &refused):
		out.Refused, out.Error = true, refused.Reason
	default:
		out.Error = text.Error(err)
	}
	return out
}

// send is the one GitHub call of a merge, a queue entry or an auto-merge, pinned to the head.
func send(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest, out *statemachine.Outcome) error {
	switch req.Kind {
	case statemachine.ServerEnqueue:
		_, err := gh.Enqueue(ctx, ref, req.ExpectedHeadSHA)
		return err
	case statemachine.ServerEnableAutoMerge:
		_, err := gh.EnableAutoMerge(ctx, ref, ghclient.AutoMergeRequest{Method: req.MergeMethod, ExpectedHeadSHA: req.ExpectedHeadSHA})
		return err
	case statemachine.ServerMerge:
		res, err := gh.Merge(ctx, ref, ghclient.MergeRequest{Method: req.MergeMethod, ExpectedHeadSHA: req.ExpectedHeadSHA})
		out.SHA = res.SHA
		return err
	}
	return fmt.Errorf("%s is not a merge", req.Kind)
}

// disableAutoMerge turns auto-merge off: the pull request changed since the user turned it on.
// It needs no head and no re-check (it never merges); already off is done. GitHub asking to
// wait postpones it like any other write (until it lands, GitHub might merge what the user did
// not see, so it is sent again rather than left to the user).
func disableAutoMerge(ctx context.Context, gh GitHub, ref prstatus.PRRef) statemachine.Outcome {
	out := statemachine.Outcome{Kind: statemachine.ServerDisableAutoMerge}
	_, err := gh.DisableAutoMerge(ctx, ref)
	if err = recordRateLimit(gh, err); err != nil {
		out.Error = text.Error(err)
		return out
	}
	out.OK = true
	return out
}
