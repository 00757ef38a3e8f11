package githubfake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

const (
	enterpriseRESTPrefix = "/api/v3"
	logPathPrefix        = "/_githubfake/logs/"
	maxBodyBytes         = 8 << 20
)

// serveHTTP routes a request: GraphQL, a log download, or REST (at / or under /api/v3).
func (f *Fake) serveHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: r.Header.Get("Authorization") != "",
		APIVersion: r.Header.Get("X-GitHub-Api-Version")}
	// The request is recorded when its status is written, before the body reaches the client, so
	// a caller that counts requests right after one returns never sees it missing.
	sw := &statusWriter{ResponseWriter: w, onStatus: func(status int) { rec.Status = status; f.record(*rec) }}
	f.mu.Lock()
	rec.At = f.clock.now()
	f.settleLocked()
	f.unlock()

	switch {
	case strings.HasPrefix(r.URL.Path, logPathPrefix):
		rec.Kind = KindDownload
		f.serveLog(sw, r, rec)
	case r.URL.Path == "/graphql" || r.URL.Path == "/api/graphql":
		rec.Kind = KindGraphQL
		f.serveGraphQL(sw, r, rec)
	default:
		rec.Kind = KindREST
		f.serveREST(sw, r, rec)
	}
	if sw.status == 0 { // nothing was written (a dropped connection)
		f.record(*rec)
	}
}

// authorized checks the Authorization header: "Bearer <token>" or "token <token>".
func (f *Fake) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	var tok string
	switch {
	case strings.HasPrefix(h, "Bearer "):
		tok = strings.TrimPrefix(h, "Bearer ")
	case strings.HasPrefix(h, "bearer "):
		tok = strings.TrimPrefix(h, "bearer ")
	case strings.HasPrefix(h, "token "):
		tok = strings.TrimPrefix(h, "token ")
	default:
		return false
	}
	tok = strings.TrimSpace(tok)
	if tok == "" {
		return false
	}
	f.mu.Lock()
	want := f.token
	f.mu.Unlock()
	return want == "" || tok == want
}

func writeBadCredentials(w http.ResponseWriter) {
	writeJSON(w, http.StatusUnauthorized, map[string]any{
		"message":           "Bad credentials",
		"documentation_url": "https://docs.github.com/rest",
		"status":            "401",
	})
}

// writeJSON writes v as a JSON response with GitHub's content type.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"message":"githubfake: cannot encode response"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeMessage(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"})
}

func writeNotFound(w http.ResponseWriter) { writeMessage(w, http.StatusNotFound, "Not Found") }

// statusWriter remembers the status code for the request record and passes hijacking through.
type statusWriter struct {
	http.ResponseWriter
	status   int
	onStatus func(int)
}

func (w *statusWriter) setStatus(status int) {
	if w.status == 0 {
		w.status = status
		if w.onStatus != nil {
			w.onStatus(status)
		}
	}
}

func (w *statusWriter) WriteHeader(status int) {
	w.setStatus(status)
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.setStatus(http.StatusOK)
	return w.ResponseWriter.Write(p)
}

// drop closes the connection without a response: a hijacked socket is closed, an in-process
// request fails.
func (w *statusWriter) drop() {
	if d, ok := w.ResponseWriter.(interface{ drop() }); ok {
		d.drop()
		return
	}
	if hj, ok := w.ResponseWriter.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			_ = conn.Close()
			return
		}
	}
	// Neither: the best we can do is an empty 502 without a body.
	w.WriteHeader(http.StatusBadGateway)
}

// withPull runs fn on the request's pull request with the fake locked, or answers 404.
func (f *Fake) withPull(w http.ResponseWriter, r *http.Request, fn func(pr *PullRequest)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pr := f.pullLocked(r)
	if pr == nil {
		writeNotFound(w)
		return
	}
	fn(pr)
}
