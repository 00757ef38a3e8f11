package effects

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/ghclient"
	"github.com/prmonitor/prmonitor/prstatus/text"
	"github.com/prmonitor/prmonitor/statemachine"
)

// MaxLogBytes caps each failing job's log tail handed to the agent.
const MaxLogBytes = 12 << 10

// execute performs one piece of work and turns the result into the machine's next input.
// Merges are recognised and performed in merge.go alone: no other file may merge.
func execute(ctx context.Context, gh GitHub, w Work) statemachine.Input {
	req, ref := w.Request, w.PR
	if req.Kind == statemachine.ServerFetchHead {
		sha, err := gh.HeadSHA(ctx, ref)
		if err != nil {
			return statemachine.HeadInput(statemachine.HeadRefresh{Error: text.Error(err)})
		}
		return statemachine.HeadInput(statemachine.HeadRefresh{OK: true, SHA: sha})
	}
	out := statemachine.Outcome{Kind: req.Kind}
	var err error
	switch req.Kind {
	case statemachine.ServerPostReply:
		_, err = gh.PostReply(ctx, ref, ghclient.ReplyRequest{ThreadID: req.ThreadID, ReplyToID: req.ReplyToID, Body: req.Body, Marker: req.Marker})
	case statemachine.ServerResolveThread:
		err = gh.ResolveThread(ctx, req.ThreadID)
	case statemachine.ServerRequestReview:
		err = gh.RequestReviews(ctx, ref, req.Reviewers)
	case statemachine.ServerRerunFailed, statemachine.ServerRerunAll:
		err = rerun(ctx, gh, ref, req)
	case statemachine.ServerFetchCILogs:
		out.Logs, err = fetchLogs(ctx, gh, ref, req.Checks)
	case statemachine.ServerUpdateBranch:
		return statemachine.OutcomeInput(updateBranch(ctx, gh, ref, req))
	default:
		if o, ok := mergeAction(ctx, gh, w); ok {
			return statemachine.OutcomeInput(o)
		}
		err = fmt.Errorf("unknown server action %q", req.Kind)
	}
	out.OK = err == nil
	if err != nil {
		out.Error = text.Error(err)
	}
	return statemachine.OutcomeInput(out)
}

func rerun(ctx context.Context, gh GitHub, ref prstatus.PRRef, req statemachine.ServerRequest) error {
	var errs []error
	for _, id := range req.RunIDs {
		var err error
		if req.Kind == statemachine.ServerRerunAll {
			err = gh.RerunWorkflow(ctx, ref, id)
		} else {
			err = gh.RerunFailedJobs(ctx, ref, id)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("run %d: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// fetchLogs gathers the tails of failing jobs' logs. A log that cannot be fetched is reported as
// such, not as a failure of the whole step: the investigation goes on with what there is.
func fetchLogs(ctx context.Context, gh GitHub, ref prstatus.PRRef, checks []prstatus.CheckFact) ([]statemachine.CheckLog, error) {
	var logs []statemachine.CheckLog
	var seen []int64
	failed := 0
	for _, c := range checks {
		if c.JobID == 0 || slices.Contains(seen, c.JobID) {
			continue
		}
		seen = append(seen, c.JobID)
		l := statemachine.CheckLog{Check: c.Name, JobID: c.JobID}
		tail, err := gh.JobLogTail(ctx, ref, c.JobID, MaxLogBytes)
		if err != nil {
			l.Error = text.Error(err)
			failed++
		} else {
			l.Tail, l.Truncated = statemachine.Untrusted(tail.Text), tail.Truncated
		}
		logs = append(logs, l)
	}
	if failed > 0 && failed == len(logs) {
		return logs, fmt.Errorf("no log could be fetched (%s)", logs[0].Error)
	}
	return logs, nil
}
