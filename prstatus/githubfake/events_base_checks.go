package githubfake

import "fmt"

// Events on the base branch's tip: the checks its own CI reports there. GitHub shows them as the
// tip commit's statusCheckRollup (baseRef.target ... on Commit).

// BaseCheckCompleted reports a GitHub Actions check run, completed with Conclusion, on the pull
// request's base branch tip (as it is when the event applies). A check of that name already there
// is run again: the new run replaces it and the old one stays in the rollup, as on GitHub.
type BaseCheckCompleted struct {
	Workflow   string // defaults to "CI"
	Name       string
	Conclusion string
}

// Describe implements Event.
func (e BaseCheckCompleted) Describe() string {
	return fmt.Sprintf("check %q on the base branch's tip completes: %s", e.Name, orDefault(e.Conclusion, ConclusionSuccess))
}

// Apply implements Event.
func (e BaseCheckCompleted) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	f := tx.f
	c := f.tipCommitLocked(pr)
	run := f.newRunLocked(pr.Repo, c, orDefault(e.Workflow, "CI"), "push", pr.BaseRef)
	cr := f.newCheckRunLocked(c, run, e.Name, f.ids.node(prefixCheckSuite), f.ids.db("suite"))
	for i := range c.CheckRuns {
		if c.CheckRuns[i].Name == e.Name && c.CheckRuns[i].Run != nil && c.CheckRuns[i].Run.WorkflowName == run.WorkflowName {
			c.Superseded = append(c.Superseded, c.CheckRuns[i])
			c.CheckRuns = append(c.CheckRuns[:i], c.CheckRuns[i+1:]...)
			break
		}
	}
	c.CheckRuns = append(c.CheckRuns, cr)
	f.completeCheckLocked(cr, orDefault(e.Conclusion, ConclusionSuccess), "")
	return nil
}

// tipCommitLocked is the commit at the pull request's base branch tip, kept with the checks
// reported on it (Repository.TipCommits).
func (f *Fake) tipCommitLocked(pr *PullRequest) *Commit {
	oid := baseTipLocked(pr)
	if c, ok := pr.Repo.TipCommits[oid]; ok {
		return c
	}
	if pr.Repo.TipCommits == nil {
		pr.Repo.TipCommits = map[string]*Commit{}
	}
	now := f.clock.now()
	c := &Commit{OID: oid, Headline: "Tip of " + pr.BaseRef, AuthoredDate: now, CommittedDate: now, pr: pr}
	pr.Repo.TipCommits[oid] = c
	return c
}
