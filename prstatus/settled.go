package prstatus

// SettledByApproval lists the threads a reviewer's approval answers: threads whose newest comment
// is the PR's side's (a reply waiting for the reviewer) and whose reviewer's latest verdict is an
// approval submitted after it. The approval says the reviewer is content, so the thread is settled
// and can be resolved, as pr-copilot does. open are still unresolved (to resolve); resolved are
// resolved already (to mention). Each list is in Derive's order.
func SettledByApproval(f *Facts) (open, resolved []ThreadFact) {
	approvedAfter := func(t ThreadFact) bool {
		for _, v := range f.Reviews.Latest {
			if sameLogin(v.Reviewer, t.Reviewer) && v.State == ReviewApproved && v.SubmittedAt.After(t.Last().CreatedAt) {
				return true
			}
		}
		return false
	}
	for _, t := range f.Threads.Waiting {
		if approvedAfter(t) {
			open = append(open, t)
		}
	}
	for _, t := range f.Threads.Resolved {
		if ours(t.Last(), f.Author, f.Viewer) && approvedAfter(t) {
			resolved = append(resolved, t)
		}
	}
	return open, resolved
}
