package ops

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
)

func TestRequestsAreCountedByRouteAndStatusNeverByPath(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	mux.HandleFunc("GET /events", func(w http.ResponseWriter, _ *http.Request) { w.(http.Flusher).Flush() })
	mux.HandleFunc("GET /{$}", func(http.ResponseWriter, *http.Request) {})
	tests := []struct {
		method, path string
		route, code  string
	}{
		{http.MethodGet, "/healthz", "/healthz", "200"},
		{http.MethodPost, "/mcp", "/mcp", "401"},
		{http.MethodGet, "/events", "/events", "200"},
		{http.MethodGet, "/", "/", "200"},
		{http.MethodGet, "/no/such/page/12345", "other", "404"},
		{http.MethodGet, "/mcp/x", "/mcp", "404"},
		{http.MethodPost, "/healthz", "/healthz", "405"},
	}
	m := New()
	h := m.Requests(mux)
	for _, tt := range tests {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tt.method, tt.path, nil))
		assert.InDelta(t, 1, testutil.ToFloat64(m.httpRequests.WithLabelValues(tt.route, tt.code)), 0, "%s %s", tt.method, tt.path)
	}
	assert.Equal(t, len(tests), testutil.CollectAndCount(m.httpRequests), "one series per route and code, none per path")
}

func TestTheRecorderKeepsAStreamFlushable(t *testing.T) {
	m := New()
	var flushable bool
	h := m.Requests(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, flushable = w.(http.Flusher)
		assert.NoError(t, http.NewResponseController(w).Flush())
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/events", nil))
	assert.True(t, flushable)
	assert.True(t, w.Flushed)
}
