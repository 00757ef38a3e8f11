package prstatus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/text"
)

// MergeView is what the user was shown when asked whether to merge: the head, and everything that
// would have made them answer otherwise. A merge goes ahead only while the pull request still
// matches it; anything new is shown to the user first.
type MergeView struct {
	Head string `json:"head"`
	// State is the pull request's state (kept for the question, compared as "still open").
	State PRState `json:"state,omitempty"`
	// Approvers approved the head: one whose approval no longer stands (dismissed, or turned into a
	// request for changes) is news.
	Approvers []string `json:"approvers,omitempty"`
	// ChangesRequested are the standing requests for changes, as reviewer#review id.
	ChangesRequested []string `json:"changes_requested,omitempty"`
	// Failing are the failing or cancelled checks, by check run.
	Failing []string `json:"failing,omitempty"`
	// Unresolved are the unresolved threads, as id@newest comment.
	Unresolved []string `json:"unresolved,omitempty"`
}

// ViewForMerge is the MergeView of f: what a question asked now shows the user.
func ViewForMerge(f *Facts) MergeView {
	v := MergeView{Head: f.HeadSHA, State: f.State, Approvers: slices.Clone(f.Reviews.Approvals)}
	for _, r := range standingRequests(f) {
		v.ChangesRequested = append(v.ChangesRequested, requestKey(r))
	}
	for _, c := range failingChecks(f) {
		v.Failing = append(v.Failing, c.keyID())
	}
	for _, t := range unresolvedThreads(f) {
		v.Unresolved = append(v.Unresolved, unresolvedKey(t))
	}
	return v
}

// Changes says, in a few words each, what f shows that the user was not shown in v: another head,
// a new request for changes, an approval that no longer stands, a new failing check, a new
// unresolved thread (or a reviewer writing again in one), or a pull request that is no longer
// open. Empty means it is still what the user chose to merge.
func (v MergeView) Changes(f *Facts) []string {
	var out []string
	if f.State != StateOpen {
		out = append(out, "the pull request is "+strings.ToLower(string(f.State))+" now")
	}
	if f.HeadSHA != v.Head {
		out = append(out, fmt.Sprintf("the head moved from %s to %s", orDefault(text.ShortSHA(v.Head), "an unknown commit"), orDefault(text.ShortSHA(f.HeadSHA), "an unknown commit")))
	}
	for _, r := range standingRequests(f) {
		if !slices.Contains(v.ChangesRequested, requestKey(r)) {
			out = append(out, r.Reviewer+" requested changes")
		}
	}
	if f.HeadSHA == v.Head { // on another head every approval is stale: the head moving says it all
		for _, a := range v.Approvers {
			if !slices.ContainsFunc(f.Reviews.Approvals, func(b string) bool { return sameLogin(a, b) }) &&
				!slices.ContainsFunc(f.Reviews.ChangesRequestedBy, func(b string) bool { return sameLogin(a, b) }) {
				out = append(out, a+"'s approval no longer stands (dismissed)")
			}
		}
	}
	for _, c := range failingChecks(f) {
		if !slices.Contains(v.Failing, c.keyID()) {
			out = append(out, fmt.Sprintf("check %s %s", c.DisplayName(), strings.ToLower(strings.ReplaceAll(c.Result, "_", " "))))
		}
	}
	for _, t := range unresolvedThreads(f) {
		if slices.Contains(v.Unresolved, unresolvedKey(t)) || t.Status == ThreadWaiting {
			continue // a thread whose newest comment is ours is no news
		}
		if slices.ContainsFunc(v.Unresolved, func(k string) bool { return strings.HasPrefix(k, t.ID+"@") }) {
			out = append(out, fmt.Sprintf("%s wrote again on %s", reviewerLogin(t.Last().Author), t.Where()))
		} else {
			out = append(out, fmt.Sprintf("a new unresolved thread from %s on %s", t.Reviewer, t.Where()))
		}
	}
	return out
}

func standingRequests(f *Facts) []ReviewerVerdict {
	var out []ReviewerVerdict
	for _, r := range f.Reviews.Latest {
		if r.State == ReviewChangesRequested {
			out = append(out, r)
		}
	}
	return out
}

func requestKey(r ReviewerVerdict) string { return r.Reviewer + "#" + r.ReviewID }

func failingChecks(f *Facts) []CheckFact {
	return append(slices.Clone(f.CI.FailedChecks), f.CI.CancelledChecks...)
}

func unresolvedThreads(f *Facts) []ThreadFact {
	return slices.Concat(f.Threads.NeedsAction, f.Threads.ReviewerReplied, f.Threads.Waiting)
}

func unresolvedKey(t ThreadFact) string { return t.ID + "@" + lastCommentID(t) }
