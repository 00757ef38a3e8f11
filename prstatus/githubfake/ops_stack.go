package githubfake

// Stacked pull requests: a pull request whose base branch is another open pull request's head
// branch. The base branch's tip is the lower pull request's head. When the lower one merges and
// the repository deletes head branches on merge (DeleteBranchOnMerge), GitHub deletes its branch
// and retargets every open pull request based on it to the merged one's base, whose tip is now the
// merge (or squash) commit.

// DeleteBranchOnMerge turns on the repository's "Automatically delete head branches" setting.
type DeleteBranchOnMerge struct{}

// Describe implements Event.
func (DeleteBranchOnMerge) Describe() string {
	return "the repository deletes head branches when their pull request merges"
}

// Apply implements Event.
func (DeleteBranchOnMerge) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	pr.Repo.DeleteBranchOnMerge = true
	return nil
}

// stackTipLocked is the tip of branch when an open pull request of repo has it as its head.
func stackTipLocked(repo *Repository, branch string) (string, bool) {
	for _, p := range repo.PullRequests {
		if p.State == PRStateOpen && p.HeadRef == branch && !p.CrossRepository {
			return p.HeadOID(), p.HeadOID() != ""
		}
	}
	return "", false
}

// afterMergeLocked is what a merge does to the pull requests stacked on the merged one: with
// DeleteBranchOnMerge its head branch goes, and they are retargeted to its base, whose tip is now
// the merge (or squash) commit. (The base tip's move is modelled only there: elsewhere the fake
// keeps a merged pull request's base where it was.)
func (f *Fake) afterMergeLocked(pr *PullRequest) {
	repo := pr.Repo
	if !repo.DeleteBranchOnMerge || pr.CrossRepository {
		return
	}
	now := f.clock.now()
	for _, up := range repo.PullRequests {
		if up.State != PRStateOpen || up.BaseRef != pr.HeadRef {
			continue
		}
		if repo.Tips == nil {
			repo.Tips = map[string]string{}
		}
		if pr.MergeCommitOID != "" {
			repo.Tips[pr.BaseRef] = pr.MergeCommitOID
		}
		up.BaseRef = pr.BaseRef
		up.UpdatedAt = now
	}
}
