package githubfake

import (
	"fmt"
	"strings"
)

// Events on CI: GitHub Actions check runs, other apps' check runs, commit statuses. They act on
// the head commit at the time they apply.

// JobNames returns n job names "<prefix> 1" .. "<prefix> n", for heads with many checks.
func JobNames(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s %d", prefix, i+1)
	}
	return out
}

// ChecksQueued starts a GitHub Actions workflow run on the head: one QUEUED check run per job.
type ChecksQueued struct {
	Workflow string // defaults to "CI"
	Jobs     []string
	// Required names the jobs a branch rule requires (isRequired).
	Required []string
}

// Describe implements Event.
func (e ChecksQueued) Describe() string {
	jobs := e.Jobs
	more := ""
	if len(jobs) > 4 {
		more = fmt.Sprintf(" and %d more", len(jobs)-4)
		jobs = jobs[:4]
	}
	return fmt.Sprintf("workflow %q queues %s%s", orDefault(e.Workflow, "CI"), strings.Join(jobs, ", "), more)
}

// Apply implements Event.
func (e ChecksQueued) Apply(tx *Tx) error {
	pr, head, err := tx.head()
	if err != nil {
		return err
	}
	tx.f.addRunLocked(pr, head, orDefault(e.Workflow, "CI"), e.Jobs, e.Required)
	return nil
}

func (tx *Tx) head() (*PullRequest, *Commit, error) {
	pr, err := tx.PR()
	if err != nil {
		return nil, nil, err
	}
	head := pr.Head()
	if head == nil {
		return nil, nil, fmt.Errorf("githubfake: %s has no commits", tx.ref)
	}
	return pr, head, nil
}

// CheckStarted moves the head's check run Name to IN_PROGRESS.
type CheckStarted struct{ Name string }

// Describe implements Event.
func (e CheckStarted) Describe() string { return fmt.Sprintf("check %q starts", e.Name) }

// Apply implements Event.
func (e CheckStarted) Apply(tx *Tx) error {
	_, head, err := tx.head()
	if err != nil {
		return err
	}
	cr, err := findCheck(head, e.Name)
	if err != nil {
		return err
	}
	tx.f.startCheckLocked(cr)
	return nil
}

// CheckCompleted completes the head's check run Name with a conclusion (SUCCESS, FAILURE,
// CANCELLED, ...). Log, when set, is the job's log.
type CheckCompleted struct {
	Name       string
	Conclusion string
	Log        string
}

// Describe implements Event.
func (e CheckCompleted) Describe() string {
	return fmt.Sprintf("check %q completes: %s", e.Name, e.Conclusion)
}

// Apply implements Event.
func (e CheckCompleted) Apply(tx *Tx) error {
	_, head, err := tx.head()
	if err != nil {
		return err
	}
	cr, err := findCheck(head, e.Name)
	if err != nil {
		return err
	}
	tx.f.completeCheckLocked(cr, orDefault(e.Conclusion, ConclusionSuccess), e.Log)
	return nil
}

// ChecksCompleted completes every unfinished check run on the head with one conclusion.
type ChecksCompleted struct{ Conclusion string }

// Describe implements Event.
func (e ChecksCompleted) Describe() string {
	return "every running check completes: " + orDefault(e.Conclusion, ConclusionSuccess)
}

// Apply implements Event.
func (e ChecksCompleted) Apply(tx *Tx) error {
	_, head, err := tx.head()
	if err != nil {
		return err
	}
	for _, cr := range head.CheckRuns {
		if cr.Status != StatusCompleted {
			tx.f.completeCheckLocked(cr, orDefault(e.Conclusion, ConclusionSuccess), "")
		}
	}
	return nil
}

// ExternalCheck adds a check run from an app other than GitHub Actions (no workflow run, no
// logs, no re-run). An empty Conclusion leaves it IN_PROGRESS.
type ExternalCheck struct {
	Name       string
	Conclusion string
	DetailsURL string
	Required   bool
}

// Describe implements Event.
func (e ExternalCheck) Describe() string {
	return fmt.Sprintf("external check %q reports %s", e.Name, orDefault(e.Conclusion, "in progress"))
}

// Apply implements Event.
func (e ExternalCheck) Apply(tx *Tx) error {
	_, head, err := tx.head()
	if err != nil {
		return err
	}
	cr := tx.f.addExternalCheckLocked(head, e.Name)
	cr.IsRequired = e.Required
	if e.DetailsURL != "" {
		cr.DetailsURL = e.DetailsURL
	}
	if e.Conclusion == "" {
		tx.f.startCheckLocked(cr)
	} else {
		tx.f.completeCheckLocked(cr, e.Conclusion, "")
	}
	return nil
}

// StatusReported sets a commit status on the head (the legacy status API): a new context, or a
// new state for an existing one.
type StatusReported struct {
	Context     string
	State       string // SUCCESS, FAILURE, ERROR, PENDING, EXPECTED
	TargetURL   string
	Description string
	Required    bool
	By          Actor
}

// Describe implements Event.
func (e StatusReported) Describe() string {
	return fmt.Sprintf("status %q is %s", e.Context, e.State)
}

// Apply implements Event.
func (e StatusReported) Apply(tx *Tx) error {
	_, head, err := tx.head()
	if err != nil {
		return err
	}
	f := tx.f
	for _, s := range head.Statuses {
		if s.Context == e.Context {
			s.State, s.CreatedAt = e.State, f.clock.now()
			if e.TargetURL != "" {
				s.TargetURL = e.TargetURL
			}
			if e.Description != "" {
				s.Description = e.Description
			}
			s.IsRequired = s.IsRequired || e.Required
			return nil
		}
	}
	s := &StatusContext{
		ID: f.ids.node(prefixStatus), Context: e.Context, State: e.State, TargetURL: e.TargetURL,
		Description: e.Description, IsRequired: e.Required, CreatedAt: f.clock.now(), Creator: e.By, commit: head,
	}
	if !s.Creator.zero() {
		f.accountLocked(s.Creator)
	}
	head.Statuses = append(head.Statuses, s)
	f.nodes[s.ID] = s
	return nil
}

// CheckSuperseded starts a new run of the head's check Name (a re-run, or the same job queued
// again): the new run is QUEUED and is the check from now on; the old one stays in the rollup as
// it was (a failure, a run still queued that never starts), where it still votes.
type CheckSuperseded struct{ Name string }

// Describe implements Event.
func (e CheckSuperseded) Describe() string {
	return fmt.Sprintf("check %q runs again; its earlier run stays in the rollup", e.Name)
}

// Apply implements Event.
func (e CheckSuperseded) Apply(tx *Tx) error {
	_, head, err := tx.head()
	if err != nil {
		return err
	}
	old, err := findCheck(head, e.Name)
	if err != nil {
		return err
	}
	f := tx.f
	cr := f.newCheckRunLocked(head, old.Run, old.Name, old.SuiteID, old.SuiteDatabaseID)
	cr.IsRequired = old.IsRequired
	for i := range head.CheckRuns {
		if head.CheckRuns[i] == old {
			head.CheckRuns[i] = cr
		}
	}
	head.Superseded = append(head.Superseded, old)
	return nil
}
