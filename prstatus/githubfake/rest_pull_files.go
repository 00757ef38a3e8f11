package githubfake

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// A pull request's changed files: what its diff adds, changes or removes (FilesChanged), listed by
// REST's GET /repos/{o}/{r}/pulls/{n}/files as GitHub does, paged by per_page and page.

// FilesChanged says the pull request's diff touches Paths (added to those it touched already).
type FilesChanged struct{ Paths []string }

// Describe implements Event.
func (e FilesChanged) Describe() string {
	return fmt.Sprintf("the pull request's diff touches %s", strings.Join(e.Paths, ", "))
}

// Apply implements Event.
func (e FilesChanged) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	for _, p := range e.Paths {
		if !contains(pr.Files, p) {
			pr.Files = append(pr.Files, p)
		}
	}
	return nil
}

// restPullFiles answers GET /repos/{o}/{r}/pulls/{n}/files: the changed files, per_page (at most
// 100) from page (1-based), with a Link header to the next page as GitHub sends it.
func (f *Fake) restPullFiles(w http.ResponseWriter, r *http.Request) {
	f.withPull(w, r, func(pr *PullRequest) {
		per := perPage(r)
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || page < 1 {
			page = 1
		}
		from := min(len(pr.Files), (page-1)*per)
		to := min(len(pr.Files), from+per)
		out := []any{}
		for _, p := range pr.Files[from:to] {
			out = append(out, map[string]any{"sha": shortOID(p), "filename": p, "status": "modified",
				"additions": 1, "deletions": 1, "changes": 2})
		}
		if to < len(pr.Files) {
			next := fmt.Sprintf("%s?per_page=%d&page=%d", r.URL.Path, per, page+1)
			w.Header().Set("Link", fmt.Sprintf(`<http://%s%s>; rel="next"`, r.Host, next))
		}
		writeJSON(w, http.StatusOK, out)
	})
}
