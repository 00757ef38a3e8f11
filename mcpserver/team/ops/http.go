package ops

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Requests counts each request of next by route and status code and times it. The route is the
// pattern the mux matched (set on the request as it routes), or for a request no pattern matched
// the first segment of a known path, else "other": never the path itself, whose ids and typos would
// make a series each.
func (m *Metrics) Requests(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := routeOf(r)
		m.httpRequests.WithLabelValues(route, strconv.Itoa(rec.code())).Inc()
		m.httpDuration.WithLabelValues(route).Observe(time.Since(start).Seconds())
	})
}

// knownRoutes are the paths both processes serve, for a request whose pattern is not visible here.
var knownRoutes = []string{"/mcp", "/webhook", "/metrics", "/healthz", "/livez", "/readyz", "/events", "/signin", "/signout",
	"/answer", "/.well-known", "/oauth", "/authorize", "/token", "/register"}

func routeOf(r *http.Request) string {
	if r.Pattern != "" {
		// "GET /healthz" and "/healthz" are one route; a host in a pattern is not a label.
		p := r.Pattern
		if i := strings.IndexByte(p, ' '); i >= 0 {
			p = p[i+1:]
		}
		if i := strings.IndexByte(p, '/'); i > 0 {
			p = p[i:]
		}
		return strings.TrimSuffix(p, "{$}")
	}
	for _, k := range knownRoutes {
		if r.URL.Path == k || strings.HasPrefix(r.URL.Path, k+"/") {
			return k
		}
	}
	if r.URL.Path == "/" {
		return "/"
	}
	return "other"
}

// statusRecorder remembers the status a handler wrote. It passes Flush through: the MCP stream
// and the board's events are server-sent, and a wrapper that hid Flush would hold them back.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Flush() {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines, hijacking).
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func (s *statusRecorder) code() int {
	if s.status == 0 {
		return http.StatusOK // a handler that wrote nothing answered 200
	}
	return s.status
}
