package githubfake

import (
	"encoding/base64"
	"fmt"
	"net/http"
)

// Files on a repository's default branch, served by REST's contents API, and pull requests from
// forks: what the dispatcher reads to know its configuration and whom it works for.

// PutFile puts a file with content at path on the repository's default branch (creating the
// repository if needed).
func (f *Fake) PutFile(owner, repo, path, content string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.ensureRepoLocked(owner, repo)
	if r.Files == nil {
		r.Files = map[string]string{}
	}
	r.Files[path] = content
}

// restGetContents is GET /repos/{owner}/{repo}/contents/{path}: a file of the default branch,
// base64-encoded as GitHub sends it; a ref other than the default branch is not modelled.
func (f *Fake) restGetContents(w http.ResponseWriter, r *http.Request) {
	if ref := r.URL.Query().Get("ref"); ref != "" {
		writeMessage(w, http.StatusNotImplemented, "githubfake: contents at a ref other than the default branch are not modelled")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	repo := f.repoLocked(r.PathValue("owner"), r.PathValue("repo"))
	path := r.PathValue("path")
	content, ok := "", false
	if repo != nil {
		content, ok = repo.Files[path]
	}
	if !ok {
		writeNotFound(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"type": "file", "encoding": "base64", "size": len(content), "name": path, "path": path,
		"content": base64.StdEncoding.EncodeToString([]byte(content)),
		"sha":     fmt.Sprintf("%040x", len(content)),
	})
}

// FromFork marks the pull request as opened from a fork (isCrossRepository) owned by Owner, a
// login; "" is the author's own fork (headRepositoryOwner).
type FromFork struct {
	Owner string
}

// Describe implements Event.
func (e FromFork) Describe() string {
	if e.Owner == "" {
		return "the pull request comes from its author's fork"
	}
	return "the pull request comes from a fork owned by " + e.Owner
}

// Apply implements Event.
func (e FromFork) Apply(tx *Tx) error {
	pr, err := tx.PR()
	if err != nil {
		return err
	}
	pr.CrossRepository, pr.HeadOwner = true, e.Owner
	return nil
}
