package ops

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// visibility answers count queries from a table and counts the queries it was asked.
type visibility struct {
	mu      sync.Mutex
	answers map[string]int64
	fail    string // a query containing this fails
	asked   int
}

func (v *visibility) count(_ context.Context, q string) (int64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.asked++
	if v.fail != "" && strings.Contains(q, v.fail) {
		return 0, errors.New("visibility unavailable")
	}
	for k, n := range v.answers {
		if strings.HasSuffix(q, k) {
			return n, nil
		}
	}
	return 0, nil
}

func TestMonitorsAreCountedByStateAndByWhatTheyWaitOnAtMostOncePerPeriod(t *testing.T) {
	vis := &visibility{answers: map[string]int64{
		"ExecutionStatus = 'Running'":    7,
		"ExecutionStatus = 'Completed'":  30,
		"PrmonitorWaitingOn = 'github'":  4,
		"PrmonitorWaitingOn = 'user'":    2,
		"PrmonitorWaitingOn = 'agent'":   1,
		"ExecutionStatus = 'Terminated'": 1,
	}}
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	m := New()
	m.Registry().MustRegister(NewMonitorCounts(vis.count, 30*time.Second, func() time.Time { return now }, nil))

	out := scrape(t, m)
	for _, want := range []string{
		`prmonitor_monitors{state="running"} 7`, `prmonitor_monitors{state="completed"} 30`, `prmonitor_monitors{state="terminated"} 1`,
		`prmonitor_monitors{state="failed"} 0`,
		`prmonitor_monitors_waiting{on="github"} 4`, `prmonitor_monitors_waiting{on="user"} 2`, `prmonitor_monitors_waiting{on="agent"} 1`,
		`prmonitor_monitors_waiting{on="nobody"} 0`,
	} {
		assert.Contains(t, out, want)
	}
	asked := vis.asked
	require.Equal(t, 10, asked, "six states and four waits")
	scrape(t, m)
	assert.Equal(t, asked, vis.asked, "a second scrape within the period asks visibility nothing")
	now = now.Add(31 * time.Second)
	scrape(t, m)
	assert.Equal(t, 2*asked, vis.asked)
}

func TestACountVisibilityCouldNotAnswerIsAbsentNotZero(t *testing.T) {
	vis := &visibility{answers: map[string]int64{"ExecutionStatus = 'Running'": 7}, fail: "PrmonitorWaitingOn = 'user'"}
	m := New()
	m.Registry().MustRegister(NewMonitorCounts(vis.count, time.Minute, time.Now, nil))
	out := scrape(t, m)
	assert.Contains(t, out, `prmonitor_monitors{state="running"} 7`)
	assert.Contains(t, out, `prmonitor_monitors_waiting{on="github"} 0`)
	assert.NotContains(t, out, `prmonitor_monitors_waiting{on="user"}`)
}

func TestLivenessIsApartFromReadiness(t *testing.T) {
	ready := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Temporal unreachable", http.StatusServiceUnavailable)
	})
	mux := http.NewServeMux()
	Probes(mux, ready)
	tests := []struct {
		path string
		code int
	}{
		{"/livez", http.StatusOK}, {"/readyz", http.StatusServiceUnavailable}, {"/healthz", http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tt.path, nil))
		assert.Equal(t, tt.code, w.Code, tt.path)
	}
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/livez", nil))
	assert.Equal(t, "no-store", w.Header().Get("Cache-Control"))
	assert.Equal(t, "ok\n", w.Body.String())
}
