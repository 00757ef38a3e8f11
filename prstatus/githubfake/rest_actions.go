package githubfake

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

// REST endpoints on GitHub Actions: jobs, their logs (a redirect to a URL that expires after one
// minute of fake time), workflow runs and re-runs.

// jobLocked finds an Actions job of the repository the path names.
func (f *Fake) jobLocked(r *http.Request) *CheckRun {
	id, ok := pathInt64(r, "job_id")
	if !ok {
		return nil
	}
	cr := f.jobs[id]
	if cr == nil || cr.Run == nil || !sameRepo(cr.Run.repo, r) {
		return nil
	}
	return cr
}

func (f *Fake) runLocked(r *http.Request) *WorkflowRun {
	id, ok := pathInt64(r, "run_id")
	if !ok {
		return nil
	}
	run := f.runs[id]
	if run == nil || !sameRepo(run.repo, r) {
		return nil
	}
	return run
}

func sameRepo(repo *Repository, r *http.Request) bool {
	return repoKey(repo.Owner, repo.Name) == repoKey(r.PathValue("owner"), r.PathValue("repo"))
}

func (f *Fake) restGetJob(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cr := f.jobLocked(r)
	if cr == nil {
		writeNotFound(w)
		return
	}
	writeJSON(w, http.StatusOK, f.restJobLocked(cr))
}

// restJobLogs answers 302 to a short-lived URL. A started fake serves those URLs from a second
// loopback server, another host as on GitHub (where they point at blob storage), so a client that
// sends its token along on the redirect is seen doing it (Request.Auth).
func (f *Fake) restJobLogs(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	cr := f.jobLocked(r)
	var tok string
	if cr != nil {
		tok = f.newLogLinkLocked(cr)
	}
	base := ""
	if f.logSrv != nil {
		base = f.logSrv.URL
	}
	f.mu.Unlock()
	if cr == nil {
		writeNotFound(w)
		return
	}
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	w.Header().Set("Location", base+logPathPrefix+tok)
	w.WriteHeader(http.StatusFound)
}

// serveLog serves a log URL: no authentication (it is pre-signed), valid for one minute, with
// Range requests and Accept-Ranges like blob storage.
func (f *Fake) serveLog(w *statusWriter, r *http.Request, rec *Request) {
	f.serveWithFaults(w, r, rec, func(w http.ResponseWriter) { f.serveLogText(w, r) })
}

func (f *Fake) serveLogText(w http.ResponseWriter, r *http.Request) {
	tok := strings.TrimPrefix(r.URL.Path, logPathPrefix)
	f.mu.Lock()
	link, ok := f.logLinks[tok]
	expired := ok && !f.clock.now().Before(link.expires)
	var text string
	if ok && !expired {
		text = jobLog(link.job)
	}
	f.mu.Unlock()
	switch {
	case r.Method != http.MethodGet:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	case !ok:
		http.Error(w, "githubfake: no such log URL", http.StatusNotFound)
	case expired:
		http.Error(w, "AuthenticationFailed: githubfake: this log URL expired (log URLs are valid for 1 minute)", http.StatusForbidden)
	default:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(text))
	}
}

func (f *Fake) restGetRun(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	run := f.runLocked(r)
	if run == nil {
		writeNotFound(w)
		return
	}
	writeJSON(w, http.StatusOK, f.restRunLocked(run))
}

// restListJobs lists a run's jobs: the latest attempt by default, every attempt with filter=all.
func (f *Fake) restListJobs(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	run := f.runLocked(r)
	if run == nil {
		writeNotFound(w)
		return
	}
	jobs := currentJobs(run)
	if r.URL.Query().Get("filter") == "all" {
		jobs = run.Jobs
	}
	out := make([]any, 0, len(jobs))
	for _, cr := range jobs {
		out = append(out, f.restJobLocked(cr))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(out), "jobs": out})
}

func (f *Fake) restRerunFailed(w http.ResponseWriter, r *http.Request) { f.rerun(w, r, true, false) }
func (f *Fake) restRerunAll(w http.ResponseWriter, r *http.Request)    { f.rerun(w, r, false, false) }
func (f *Fake) restRerunJob(w http.ResponseWriter, r *http.Request)    { f.rerun(w, r, false, true) }

func (f *Fake) rerun(w http.ResponseWriter, r *http.Request, failedOnly, oneJob bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var run *WorkflowRun
	var only *CheckRun
	if oneJob {
		only = f.jobLocked(r)
		if only != nil {
			run = only.Run
		}
	} else {
		run = f.runLocked(r)
	}
	if run == nil {
		writeNotFound(w)
		return
	}
	if _, err := f.rerunLocked(run, failedOnly, only); err != nil {
		var refusal rerunRefusal
		if errors.As(err, &refusal) {
			writeMessage(w, http.StatusForbidden, err.Error())
			return
		}
		writeMessage(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{})
}
