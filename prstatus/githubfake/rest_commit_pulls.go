package githubfake

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// restCommitPulls answers GET /repos/{o}/{r}/commits/{sha}/pulls, GitHub's "list pull requests
// associated with a commit": the repository's pull requests with that commit among theirs (open
// ones first, then the others, newest first within each, as GitHub lists them), paged by per_page
// (at most 100). The commit is named by its full SHA; an unknown one gives an empty list.
func (f *Fake) restCommitPulls(w http.ResponseWriter, r *http.Request) {
	sha := strings.ToLower(r.PathValue("sha"))
	f.mu.Lock()
	defer f.mu.Unlock()
	repo := f.repoLocked(r.PathValue("owner"), r.PathValue("repo"))
	if repo == nil {
		writeNotFound(w)
		return
	}
	var prs []*PullRequest
	for _, pr := range repo.PullRequests {
		if slices.ContainsFunc(pr.Commits, func(c *Commit) bool { return strings.EqualFold(c.OID, sha) }) {
			prs = append(prs, pr)
		}
	}
	slices.SortFunc(prs, func(a, b *PullRequest) int {
		if ao, bo := a.State == PRStateOpen, b.State == PRStateOpen; ao != bo {
			if ao {
				return -1
			}
			return 1
		}
		return b.Number - a.Number
	})
	out := []any{}
	for _, pr := range prs[:min(len(prs), perPage(r))] {
		out = append(out, f.restPullLocked(pr))
	}
	writeJSON(w, http.StatusOK, out)
}

// perPage is a list request's per_page: GitHub's default 30, at most 100.
func perPage(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("per_page"))
	if err != nil || n <= 0 {
		return 30
	}
	return min(n, 100)
}
