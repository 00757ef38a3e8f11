package githubfake

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Check runs, workflow runs, re-runs and job logs, with the fake's lock held.

// RerunJob is one check run being re-run, as a RerunHook sees it.
type RerunJob struct {
	Ref      Ref
	Workflow string
	Name     string
	RunID    int64
	// Attempt is the new run attempt (2 for the first re-run).
	Attempt int
	// OldJobID and OldConclusion describe the check run being replaced; NewJobID is its successor.
	OldJobID      int64
	OldConclusion string
	NewJobID      int64
}

// RerunOutcome says how a re-run check run ends. A zero Conclusion leaves it queued until a
// scenario step completes it.
type RerunOutcome struct {
	Conclusion string
	// After is the fake time between the re-run request and completion; in between the check run
	// is QUEUED, then IN_PROGRESS once any fake time has passed.
	After time.Duration
	// Log replaces the job's log.
	Log string
}

// RerunHook decides how each re-run check run finishes. Without a hook, re-run check runs stay
// QUEUED until the scenario completes them (CheckCompleted by name).
type RerunHook func(job RerunJob) RerunOutcome

// dueCompletion is a check run that will complete at a fake time.
type dueCompletion struct {
	cr          *CheckRun
	requestedAt time.Time
	at          time.Time
	conclusion  string
	log         string
}

// rerunRefusal is GitHub refusing a re-run, in GitHub's own words (REST answers 403 with them).
type rerunRefusal string

func (r rerunRefusal) Error() string { return string(r) }

// The refusals a re-run can meet.
const (
	errRunInProgress rerunRefusal = "This workflow is already running"
	errNothingFailed rerunRefusal = "This workflow run cannot be retried: it has no failed jobs"
)

func (f *Fake) workflowIDLocked(repo *Repository, name string) (int64, string) {
	for _, run := range repo.Runs {
		if run.WorkflowName == name {
			return run.WorkflowID, run.WorkflowNodeID
		}
	}
	return f.ids.db("workflow"), f.ids.node(prefixWorkflow)
}

// addRunLocked starts a GitHub Actions workflow run on c with one QUEUED check run per job.
func (f *Fake) addRunLocked(pr *PullRequest, c *Commit, workflowName string, jobs, required []string) *WorkflowRun {
	run := f.newRunLocked(pr.Repo, c, workflowName, "pull_request", pr.HeadRef)
	suiteID, suiteDB := f.ids.node(prefixCheckSuite), f.ids.db("suite")
	for _, name := range jobs {
		cr := f.newCheckRunLocked(c, run, name, suiteID, suiteDB)
		cr.IsRequired = contains(required, name)
		c.CheckRuns = append(c.CheckRuns, cr)
	}
	return run
}

// newRunLocked registers a workflow run of workflowName on commit c, started by event on branch.
func (f *Fake) newRunLocked(repo *Repository, c *Commit, workflowName, event, branch string) *WorkflowRun {
	wid, wnode := f.workflowIDLocked(repo, workflowName)
	run := &WorkflowRun{
		ID: f.ids.node(prefixWorkflowRun), DatabaseID: f.ids.db("run"), WorkflowName: workflowName,
		WorkflowID: wid, WorkflowNodeID: wnode, RunNumber: len(repo.Runs) + 1, Attempt: 1,
		Event: event, HeadSHA: c.OID, HeadBranch: branch, CreatedAt: f.clock.now(), repo: repo,
	}
	repo.Runs[run.DatabaseID] = run
	f.runs[run.DatabaseID] = run
	f.nodes[run.ID] = run
	return run
}

func (f *Fake) newCheckRunLocked(c *Commit, run *WorkflowRun, name, suiteID string, suiteDB int64) *CheckRun {
	cr := &CheckRun{
		ID: f.ids.node(prefixCheckRun), DatabaseID: f.ids.db("job"), Name: name, Status: StatusQueued,
		Run: run, HeadSHA: c.OID, SuiteID: suiteID, SuiteDatabaseID: suiteDB, commit: c,
	}
	f.nodes[cr.ID] = cr
	if run != nil {
		cr.Attempt = run.Attempt
		cr.DetailsURL = run.URL() + "/job/" + i64toa(cr.DatabaseID)
		run.Jobs = append(run.Jobs, cr)
		f.jobs[cr.DatabaseID] = cr
	} else {
		cr.Attempt = 1
		cr.DetailsURL = "https://ci.example.com/" + c.pr.Repo.NameWithOwner() + "/" + i64toa(cr.DatabaseID)
	}
	return cr
}

// addExternalCheckLocked adds a check run from an app other than GitHub Actions (no workflow run,
// no logs, cannot be re-run).
func (f *Fake) addExternalCheckLocked(c *Commit, name string) *CheckRun {
	cr := f.newCheckRunLocked(c, nil, name, f.ids.node(prefixCheckSuite), f.ids.db("suite"))
	c.CheckRuns = append(c.CheckRuns, cr)
	return cr
}

func (f *Fake) startCheckLocked(cr *CheckRun) {
	cr.Status = StatusInProgress
	if cr.StartedAt.IsZero() {
		cr.StartedAt = f.clock.now()
	}
}

func (f *Fake) completeCheckLocked(cr *CheckRun, conclusion, log string) {
	now := f.clock.now()
	if cr.StartedAt.IsZero() {
		cr.StartedAt = now
	}
	cr.Status = StatusCompleted
	cr.Conclusion = conclusion
	cr.CompletedAt = now
	if log != "" {
		cr.Log = log
	}
	f.dropDueLocked(cr)
}

func (f *Fake) dropDueLocked(cr *CheckRun) {
	kept := f.due[:0]
	for _, d := range f.due {
		if d.cr != cr {
			kept = append(kept, d)
		}
	}
	f.due = kept
}

// findCheck returns the current check run with that name on c.
func findCheck(c *Commit, name string) (*CheckRun, error) {
	if c == nil {
		return nil, errors.New("githubfake: the pull request has no commits yet")
	}
	for i := len(c.CheckRuns) - 1; i >= 0; i-- {
		if c.CheckRuns[i].Name == name {
			return c.CheckRuns[i], nil
		}
	}
	return nil, fmt.Errorf("githubfake: no check run named %q on %s", name, shortOID(c.OID))
}

// currentJobs are the run's check runs of its latest attempt, as the commit shows them.
func currentJobs(run *WorkflowRun) []*CheckRun {
	var out []*CheckRun
	for _, cr := range run.Jobs {
		if cr.commit == nil {
			continue
		}
		for _, cur := range cr.commit.CheckRuns {
			if cur == cr {
				out = append(out, cr)
			}
		}
	}
	return out
}

// rerunLocked re-runs a workflow run's failed jobs (failedOnly) or all of them. Each re-run job is
// a new check run with a new database id, QUEUED; the RerunHook decides how it ends.
func (f *Fake) rerunLocked(run *WorkflowRun, failedOnly bool, only *CheckRun) (int, error) {
	jobs := currentJobs(run)
	for _, cr := range jobs {
		if cr.Status != StatusCompleted {
			return 0, errRunInProgress
		}
	}
	var picked []*CheckRun
	for _, cr := range jobs {
		if (only == nil || cr == only) && (!failedOnly || cr.Failed()) {
			picked = append(picked, cr)
		}
	}
	if len(picked) == 0 {
		return 0, errNothingFailed
	}
	run.Attempt++
	now := f.clock.now()
	for _, old := range picked {
		cr := f.newCheckRunLocked(old.commit, run, old.Name, old.SuiteID, old.SuiteDatabaseID)
		cr.IsRequired = old.IsRequired
		c := old.commit
		for i := range c.CheckRuns {
			if c.CheckRuns[i] == old {
				c.CheckRuns[i] = cr
			}
		}
		c.Superseded = append(c.Superseded, old)
		if f.rerunHook == nil {
			continue
		}
		out := f.rerunHook(RerunJob{
			Ref: c.pr.Ref(), Workflow: run.WorkflowName, Name: cr.Name, RunID: run.DatabaseID, Attempt: run.Attempt,
			OldJobID: old.DatabaseID, OldConclusion: old.Conclusion, NewJobID: cr.DatabaseID,
		})
		if out.Conclusion != "" {
			f.due = append(f.due, dueCompletion{cr: cr, requestedAt: now, at: now.Add(out.After), conclusion: out.Conclusion, log: out.Log})
		}
	}
	return len(picked), nil
}

// settleLocked lets due things happen: re-run check runs progress and finish, workflows
// registered on a push appear, lazy mergeability is computed, and GitHub merges what auto-merge
// and merge queues hold (their merge hook calls wait in afterSettle for unlock).
func (f *Fake) settleLocked() {
	f.settleChecksLocked()
	f.settleMergeabilityLocked()
	f.settleMergesLocked()
}

// unlock releases the fake's lock, then makes the merge hook calls settling left.
func (f *Fake) unlock() {
	hooks := f.afterSettle
	f.afterSettle = nil
	f.mu.Unlock()
	for _, h := range hooks {
		h()
	}
}

func (f *Fake) settleChecksLocked() {
	f.settlePushWorkflowsLocked()
	if len(f.due) == 0 {
		return
	}
	now := f.clock.now()
	var later []dueCompletion
	for _, d := range f.due {
		switch {
		case !now.Before(d.at):
			d.cr.Status = StatusCompleted
			d.cr.Conclusion = d.conclusion
			if d.cr.StartedAt.IsZero() {
				d.cr.StartedAt = d.requestedAt
			}
			d.cr.CompletedAt = d.at
			if d.log != "" {
				d.cr.Log = d.log
			}
		case now.After(d.requestedAt):
			if d.cr.Status == StatusQueued {
				d.cr.Status = StatusInProgress
				d.cr.StartedAt = d.requestedAt
			}
			later = append(later, d)
		default:
			later = append(later, d)
		}
	}
	f.due = later
}

// logLink is a short-lived URL to a job's log.
type logLink struct {
	job     *CheckRun
	expires time.Time
}

func (f *Fake) newLogLinkLocked(cr *CheckRun) string {
	tok := f.ids.token()
	f.logLinks[tok] = logLink{job: cr, expires: f.clock.now().Add(f.logExpiry)}
	return tok
}

// jobLog is a job's log text: the scenario's, or a plausible one for its conclusion.
func jobLog(cr *CheckRun) string {
	if cr.Log != "" {
		return cr.Log
	}
	ts := cr.StartedAt
	if ts.IsZero() {
		ts = cr.CompletedAt
	}
	stamp := ts.UTC().Format("2006-01-02T15:04:05.0000000Z")
	var b strings.Builder
	fmt.Fprintf(&b, "%s ##[group]Run %s\n", stamp, cr.Name)
	fmt.Fprintf(&b, "%s Running %s on %s\n", stamp, cr.Name, shortOID(cr.HeadSHA))
	fmt.Fprintf(&b, "%s ##[endgroup]\n", stamp)
	switch cr.Conclusion {
	case ConclusionSuccess, "":
		fmt.Fprintf(&b, "%s ok\n", stamp)
	case ConclusionCancelled:
		fmt.Fprintf(&b, "%s ##[error]The operation was canceled.\n", stamp)
	default:
		fmt.Fprintf(&b, "%s --- FAIL: %s\n", stamp, cr.Name)
		fmt.Fprintf(&b, "%s ##[error]Process completed with exit code 1.\n", stamp)
	}
	return b.String()
}
