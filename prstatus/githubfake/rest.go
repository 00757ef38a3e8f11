package githubfake

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// newRESTMux routes the REST endpoints prmonitor uses (and a few neighbours). Anything else is
// GitHub's JSON 404.
func (f *Fake) newRESTMux() *http.ServeMux {
	m := http.NewServeMux()
	m.HandleFunc("GET /user", f.restGetUser)
	m.HandleFunc("GET /rate_limit", f.restRateLimit)

	m.HandleFunc("GET /repos/{owner}/{repo}/contents/{path...}", f.restGetContents)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", f.restGetPull)
	m.HandleFunc("PATCH /repos/{owner}/{repo}/pulls/{number}", f.restPatchPull)
	m.HandleFunc("PATCH /repos/{owner}/{repo}/issues/{number}", f.restPatchIssue)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/comments", f.restListComments)
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls/{number}/comments", f.restCreateComment)
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls/{number}/comments/{comment_id}/replies", f.restReply)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/reviews", f.restListReviews)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/files", f.restPullFiles)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", f.restGetRequested)
	m.HandleFunc("POST /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", f.restRequestReviewers)
	m.HandleFunc("DELETE /repos/{owner}/{repo}/pulls/{number}/requested_reviewers", f.restRemoveReviewers)
	m.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}/merge", f.restIsMerged)
	m.HandleFunc("PUT /repos/{owner}/{repo}/pulls/{number}/merge", f.restMerge)
	m.HandleFunc("PUT /repos/{owner}/{repo}/pulls/{number}/update-branch", f.restUpdateBranch)
	m.HandleFunc("DELETE /repos/{owner}/{repo}/git/refs/{ref...}", f.restDeleteRef)
	m.HandleFunc("GET /repos/{owner}/{repo}/commits/{sha}/pulls", f.restCommitPulls)
	f.restIssueRoutes(m)

	m.HandleFunc("GET /repos/{owner}/{repo}/actions/jobs/{job_id}", f.restGetJob)
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", f.restJobLogs)
	m.HandleFunc("POST /repos/{owner}/{repo}/actions/jobs/{job_id}/rerun", f.restRerunJob)
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/runs/{run_id}", f.restGetRun)
	m.HandleFunc("GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs", f.restListJobs)
	m.HandleFunc("POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs", f.restRerunFailed)
	m.HandleFunc("POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun", f.restRerunAll)

	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeNotFound(w) })
	return m
}

// serveREST answers a REST call at / or under /api/v3 (GitHub Enterprise Server style).
func (f *Fake) serveREST(w *statusWriter, r *http.Request, rec *Request) {
	p := r.URL.Path
	if p == enterpriseRESTPrefix || strings.HasPrefix(p, enterpriseRESTPrefix+"/") {
		p = strings.TrimPrefix(p, enterpriseRESTPrefix)
		if p == "" {
			p = "/"
		}
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	if err != nil {
		writeMessage(w, http.StatusBadRequest, "Problems parsing JSON")
		return
	}
	rec.Body = string(body)
	f.serveWithFaults(w, r, rec, func(w http.ResponseWriter) { f.serveRESTCall(w, r, p, body) })
}

// REST API versions the fake serves (X-GitHub-Api-Version). A request without the header gets
// the oldest, as on GitHub. 2026-03-10 removed fields: merge_commit_sha from pull requests, rate
// from /rate_limit (https://docs.github.com/rest/about-the-rest-api/breaking-changes).
const (
	APIVersion20221128 = "2022-11-28"
	APIVersion20260310 = "2026-03-10"
)

// apiVersion is the request's REST API version; ok is false for one GitHub does not serve.
func apiVersion(r *http.Request) (string, bool) {
	switch v := r.Header.Get("X-GitHub-Api-Version"); v {
	case "":
		return APIVersion20221128, true
	case APIVersion20221128, APIVersion20260310:
		return v, true
	default:
		return v, false
	}
}

// serveRESTCall answers an authenticated, rate-limited REST call at path p.
func (f *Fake) serveRESTCall(w http.ResponseWriter, r *http.Request, p string, body []byte) {
	if !f.authorized(r) {
		writeBadCredentials(w)
		return
	}
	if v, ok := apiVersion(r); !ok {
		writeMessage(w, http.StatusBadRequest, "API version "+v+" is not supported: use "+APIVersion20221128+" or "+APIVersion20260310)
		return
	}

	f.mu.Lock()
	now := f.clock.now()
	exhausted := f.restRate.exhausted(now)
	if !exhausted {
		f.restRate.charge(now, 1)
	}
	f.restRate.headers(now).set(w)
	f.mu.Unlock()
	if exhausted {
		writeMessage(w, http.StatusForbidden, "API rate limit exceeded for user ID 1.")
		return
	}

	r2 := r.Clone(r.Context())
	r2.URL.Path = p
	r2.URL.RawPath = ""
	r2.Body = io.NopCloser(bytes.NewReader(body))
	f.mux.ServeHTTP(w, r2)
}

// decodeBody reads a JSON request body into v; false (after answering 400) when it is not JSON.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeMessage(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return true
	}
	if err := json.Unmarshal(raw, v); err != nil {
		writeMessage(w, http.StatusBadRequest, "Problems parsing JSON")
		return false
	}
	return true
}

func validationFailed(w http.ResponseWriter, resource, field, code string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []any{map[string]any{"resource": resource, "code": code, "field": field}},
		"documentation_url": "https://docs.github.com/rest",
	})
}

// pullLocked finds the pull request a REST path names; nil when the path's repository or number
// names none.
func (f *Fake) pullLocked(r *http.Request) *PullRequest {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		return nil
	}
	return f.prLocked(Ref{Owner: r.PathValue("owner"), Repo: r.PathValue("repo"), Number: n})
}

func pathInt64(r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return n, err == nil
}

func (f *Fake) restGetUser(w http.ResponseWriter, _ *http.Request) {
	f.mu.Lock()
	u := f.restUserLocked(f.viewer)
	f.mu.Unlock()
	writeJSON(w, http.StatusOK, u)
}

func (f *Fake) restRateLimit(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	now := f.clock.now()
	core, gql := f.restRate.headers(now), f.graphqlRate.headers(now)
	f.mu.Unlock()
	res := func(h rateHeaders) map[string]any {
		return map[string]any{"limit": h.limit, "remaining": h.remaining, "used": h.used, "reset": h.reset, "resource": h.resource}
	}
	out := map[string]any{
		"resources": map[string]any{"core": res(core), "graphql": res(gql)},
		"rate":      res(core),
	}
	if v, _ := apiVersion(r); v == APIVersion20260310 {
		delete(out, "rate")
	}
	writeJSON(w, http.StatusOK, out)
}
