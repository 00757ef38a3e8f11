package ghclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus"
)

// ErrRunInProgress: GitHub refused a re-run because the workflow run is still running.
var ErrRunInProgress = errors.New("the workflow run is still running; re-run it once it has finished")

// RerunFailedJobs re-runs the failed jobs (and the jobs that depend on them) of one GitHub Actions
// workflow run: REST POST .../actions/runs/{id}/rerun-failed-jobs, 201. See rerun for retries.
func (c *Client) RerunFailedJobs(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return c.rerun(ctx, ref, runID, "rerun-failed-jobs", fmt.Sprintf("re-run the failed jobs of run %d on %s", runID, ref))
}

// RerunWorkflow re-runs every job of a GitHub Actions workflow run: REST POST
// .../actions/runs/{id}/rerun, 201. See rerun for retries.
func (c *Client) RerunWorkflow(ctx context.Context, ref prstatus.PRRef, runID int64) error {
	return c.rerun(ctx, ref, runID, "rerun", fmt.Sprintf("re-run run %d on %s", runID, ref))
}

// rerun sends one re-run request. It is not retried after an answer (a 5xx may have started the
// run), only after a failure that brought no answer at all (a refused or dropped connection, a
// timeout). Such a retry is safe: if the lost attempt had started the run, GitHub refuses the
// next with "already running", which then means the re-run happened. A first "already running"
// is ErrRunInProgress; a rate limit is returned for the caller to schedule.
func (c *Client) rerun(ctx context.Context, ref prstatus.PRRef, runID int64, endpoint, what string) error {
	if err := checkRef(ref); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if runID <= 0 {
		return fmt.Errorf("%s: no workflow run id", what)
	}
	path := repoPath(ref) + "/actions/runs/" + i64(runID) + "/" + endpoint
	for attempt := 1; ; attempt++ {
		resp, err := c.restDo(ctx, http.MethodPost, path, nil)
		switch {
		case err == nil && resp.ok():
			return nil
		case err == nil && alreadyRunning(resp.status, c.restMessage(resp.body)):
			err = fmt.Errorf("%w (GitHub: %s)", ErrRunInProgress, c.restMessage(resp.body))
		case err == nil:
			return fmt.Errorf("%s: %w", what, c.statusErr(resp))
		case errors.Is(err, ErrForbidden) && alreadyRunning(http.StatusForbidden, err.Error()):
			err = fmt.Errorf("%w (GitHub: %s)", ErrRunInProgress, strings.TrimPrefix(err.Error(), ErrForbidden.Error()+": "))
		case noResponse(err):
			again, werr := c.waitToRetry(ctx, what, err, attempt)
			if werr != nil {
				return werr
			}
			if again {
				continue
			}
			return fmt.Errorf("%s: %w", what, err)
		default:
			return fmt.Errorf("%s: %w", what, err)
		}
		// "Already running".
		if attempt > 1 {
			c.log.InfoContext(ctx, "re-run started by an attempt whose answer was lost", "pr", ref.String(), "run", runID)
			return nil
		}
		return fmt.Errorf("%s: %w", what, err)
	}
}

// alreadyRunning recognises GitHub's refusal to re-run a run that is still going.
func alreadyRunning(status int, message string) bool {
	return (status == http.StatusForbidden || status == http.StatusConflict) &&
		strings.Contains(strings.ToLower(message), "already running")
}
