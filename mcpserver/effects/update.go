package effects

import (
	"context"
	"errors"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// updateBranch brings the pull request's branch up to date with its base at the head the user
// saw (GitHub's "Update branch": the base merged into the head). It never merges the pull request.
// A moved head is reported as such, nothing changed; the next polls watch the new head while its
// checks run again.
func updateBranch(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest) statemachine.Outcome {
	out := statemachine.Outcome{Kind: statemachine.ServerUpdateBranch}
	if req.ExpectedHeadSHA == "" {
		out.Error = "refusing to update the branch without the head the user saw"
		return out
	}
	err := gh.UpdateBranch(ctx, ref, req.ExpectedHeadSHA)
	switch {
	case err == nil:
		out.OK = true
	case errors.Is(err, ghclient.ErrBranchHeadMoved):
		out.HeadMoved, out.Error = true, text.Error(err)
	default:
		out.Error = text.Error(err)
	}
	return out
}
