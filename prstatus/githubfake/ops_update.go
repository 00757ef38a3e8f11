package githubfake

import (
	"net/http"
	"slices"
)

// REST PUT /repos/{owner}/{repo}/pulls/{number}/update-branch: GitHub's "Update branch" button.
// It merges the base branch into the head branch (a merge commit by the token's user, with the
// base as its second parent), answers 202 Accepted, and the workflows run again on the new head.
// It refuses, with 422 as GitHub does: a closed pull request, an expected_head_sha that is not the
// head, a head that conflicts with its base, and a head that is not behind.

// updateRefusal is why an update-branch request is refused, with its HTTP status.
type updateRefusal struct {
	status  int
	message string
}

func (f *Fake) restUpdateBranch(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ExpectedHeadSHA string `json:"expected_head_sha"`
	}
	if !decodeBody(w, r, &in) {
		return
	}
	f.mu.Lock()
	pr := f.pullLocked(r)
	if pr == nil {
		f.mu.Unlock()
		writeNotFound(w)
		return
	}
	refusal := f.updateBranchLocked(pr, in.ExpectedHeadSHA)
	url := pr.URL()
	f.mu.Unlock()
	if refusal != nil {
		writeMessage(w, refusal.status, refusal.message)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"message": "Updating pull request branch.", "url": url})
}

// updateBranchLocked merges the base into the head, or says why not.
func (f *Fake) updateBranchLocked(pr *PullRequest, expected string) *updateRefusal {
	switch {
	case pr.State != PRStateOpen:
		return &updateRefusal{http.StatusUnprocessableEntity, "Pull request is not open."}
	case expected != "" && expected != pr.HeadOID():
		return &updateRefusal{http.StatusUnprocessableEntity, "expected head sha didn't match current head ref."}
	case pr.Mergeable == MergeableStateConflicting:
		return &updateRefusal{http.StatusUnprocessableEntity, "merge conflict between base and head"}
	case !pr.Behind:
		return &updateRefusal{http.StatusUnprocessableEntity, "There are no new commits on the base branch."}
	}
	old := pr.Head()
	heads := f.pushLocked(pr, []NewCommit{{Merge: true, Author: f.viewer}})
	if old != nil && len(heads) == 1 {
		f.rerunWorkflowsLocked(pr, old, heads[0])
	}
	return nil
}

// rerunWorkflowsLocked queues, on the new head, every workflow that ran on the old head, with the
// same jobs and the same required ones: a push starts the workflows again.
func (f *Fake) rerunWorkflowsLocked(pr *PullRequest, old, head *Commit) {
	var order []*WorkflowRun
	jobs := map[*WorkflowRun][]string{}
	required := map[*WorkflowRun][]string{}
	for _, cr := range old.CheckRuns {
		if cr.Run == nil {
			continue
		}
		if !slices.Contains(order, cr.Run) {
			order = append(order, cr.Run)
		}
		jobs[cr.Run] = append(jobs[cr.Run], cr.Name)
		if cr.IsRequired {
			required[cr.Run] = append(required[cr.Run], cr.Name)
		}
	}
	for _, run := range order {
		f.addRunLocked(pr, head, run.WorkflowName, jobs[run], required[run])
	}
}
