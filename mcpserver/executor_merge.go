package mcpserver

import (
	"context"
	"errors"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/statemachine"
)

// mergeAction performs req if it is a merge. This file is the only place prmonitor merges a pull
// request (a static test keeps it so); the state machine asks for a merge only from the user's
// explicit merge choice in the ready flow, pinned to the head the user saw.
func mergeAction(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest) (statemachine.Outcome, bool) {
	if req.Kind != statemachine.ServerMerge {
		return statemachine.Outcome{}, false
	}
	return performMerge(ctx, gh, ref, req), true
}

// performMerge merges at the expected head. An "administrator bypass" merge (offered only when the
// user configured it) is the same call: GitHub applies a bypass to accounts allowed one.
func performMerge(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest) statemachine.Outcome {
	out := statemachine.Outcome{Kind: statemachine.ServerMerge}
	if req.ExpectedHeadSHA == "" {
		out.Error = "refusing to merge without the head the user approved"
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
