package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v92/github"

	"github.com/prmonitor/prmonitor/prstatus"
)

// ErrRunInProgress means GitHub refused a re-run because the workflow run is still running.
var ErrRunInProgress = errors.New("the workflow run is still running; re-run it once it has finished")

// RerunFailedJobs re-runs the failed jobs (and the jobs that depend on them) of one GitHub Actions
// workflow run: REST POST .../actions/runs/{id}/rerun-failed-jobs, 201. See rerun for retries.
func (c *Client) RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return c.rerun(ctx, ref, runID, c.rest.Actions.RerunFailedJobsByID, fmt.Sprintf("re-run the failed jobs of run %d on %s", runID, ref))
}

// RerunWorkflow re-runs every job of a GitHub Actions workflow run: REST POST
// .../actions/runs/{id}/rerun, 201. See rerun for retries.
func (c *Client) RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return c.rerun(ctx, ref, runID, c.rest.Actions.RerunWorkflowByID, fmt.Sprintf("re-run run %d on %s", runID, ref))
}

// rerunCall is one of go-github's re-run methods.
type rerunCall func(ctx context.Context, owner, repo string, runID int64) (*github.Response, error)

// rerun sends one re-run request (Client.write). It is not retried after an answer (a 5xx may have
// started the run), only after a failure that brought no answer at all (a refused or dropped
// connection, a timeout). Such a retry is safe: if the lost attempt had started the run, GitHub
// refuses the next with "already running", which then means the re-run happened. A first "already
// running" is ErrRunInProgress; a rate limit is returned for the caller to schedule.
func (c *Client) rerun(ctx context.Context, ref prstatus.PRRef, runID int64, call rerunCall, what string) error {
	if err := checkRef(ref); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if runID <= 0 {
		return fmt.Errorf("%s: no workflow run id", what)
	}
	owner, repo := repoArgs(ref)
	return c.write(ctx, write{
		what: what,
		send: func(ctx context.Context, attempt int) error {
			resp, err := call(ctx, owner, repo, runID)
			err = c.restError(ctx, resp, err)
			msg, running := alreadyRunning(err)
			switch {
			case !running:
				return err
			case attempt > 1:
				c.log.InfoContext(ctx, "re-run started by an attempt whose answer was lost", "pr", ref.String(), "run", runID)
				return nil
			}
			return fmt.Errorf("%w (GitHub: %s)", ErrRunInProgress, msg)
		},
		retryable: noResponse,
	})
}

// alreadyRunning recognises GitHub's refusal to re-run a run that is still going (a 403 or 409
// saying "already running") and returns GitHub's words.
func alreadyRunning(err error) (string, bool) {
	var st *RESTStatusError
	switch {
	case errors.As(err, &st):
		if st.Status == http.StatusConflict || st.Status == http.StatusForbidden {
			return st.Message, strings.Contains(strings.ToLower(st.Message), "already running")
		}
	case errors.Is(err, ErrForbidden):
		return strings.TrimPrefix(err.Error(), ErrForbidden.Error()+": "), strings.Contains(strings.ToLower(err.Error()), "already running")
	}
	return "", false
}
