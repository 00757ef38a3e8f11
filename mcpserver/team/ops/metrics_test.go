package ops

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// scrape is what Prometheus reads at /metrics.
func scrape(t *testing.T, m *Metrics) string {
	t.Helper()
	w := httptest.NewRecorder()
	m.Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, w.Code)
	return w.Body.String()
}

func TestWebhookDeliveriesAreCountedByEventAndResultWithBoundedLabels(t *testing.T) {
	m := New()
	m.Webhook("pull_request", "signalled")
	m.Webhook("pull_request", "signalled")
	m.Webhook("Weird Event\n"+strings.Repeat("x", 100), "ignored")
	m.Webhook("", "refused")
	assert.InDelta(t, 2, testutil.ToFloat64(m.webhook.WithLabelValues("pull_request", "signalled")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.webhook.WithLabelValues("weirdevent"+strings.Repeat("x", 30), "ignored")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.webhook.WithLabelValues("unknown", "refused")), 0)
}

func TestPointsAreRecordedPerTokenFromGitHubsCounters(t *testing.T) {
	m := New()
	m.Points("sha256:0badc0de", 3, 4990, 5000)
	m.Points("sha256:0badc0de", 1, 4980, 5000)
	m.Points("sha256:0badc0de", 0, 0, 0) // an answer without counters says nothing
	m.Points("app:1/2", 2, 100, 15000)
	assert.InDelta(t, 4, testutil.ToFloat64(m.pointsSpent.WithLabelValues("sha256:0badc0de")), 0)
	assert.InDelta(t, 20, testutil.ToFloat64(m.pointsUsed.WithLabelValues("sha256:0badc0de")), 0)
	assert.InDelta(t, 4980, testutil.ToFloat64(m.pointsRemaining.WithLabelValues("sha256:0badc0de")), 0)
	assert.InDelta(t, 5000, testutil.ToFloat64(m.pointsLimit.WithLabelValues("sha256:0badc0de")), 0)
	assert.InDelta(t, 14900, testutil.ToFloat64(m.pointsUsed.WithLabelValues("app:1/2")), 0)
}

func TestActivityAttemptsCountRetriesAndFailures(t *testing.T) {
	m := New()
	m.Attempt("prmonitor.ReadSnapshot", 1, true)
	m.Attempt("prmonitor.ReadSnapshot", 2, true)
	m.Attempt("prmonitor.ReadSnapshot", 3, false)
	m.Attempt("prmonitor.Perform", 1, false)
	assert.InDelta(t, 2, testutil.ToFloat64(m.activityAttempts.WithLabelValues("prmonitor.ReadSnapshot", "failed")), 0)
	assert.InDelta(t, 1, testutil.ToFloat64(m.activityAttempts.WithLabelValues("prmonitor.ReadSnapshot", "ok")), 0)
	assert.InDelta(t, 2, testutil.ToFloat64(m.activityRetries.WithLabelValues("prmonitor.ReadSnapshot")), 0)
	assert.InDelta(t, 0, testutil.ToFloat64(m.activityRetries.WithLabelValues("prmonitor.Perform")), 0)
}

func TestANilRegistryRecordsNothingAndPanicsNowhere(t *testing.T) {
	var m *Metrics
	m.Webhook("x", "y")
	m.Points("t", 1, 2, 3)
	m.Attempt("a", 2, true)
	h := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	assert.NotNil(t, m.Requests(h))
	m.TemporalHandler().WithTags(map[string]string{"a": "b"}).Counter("c").Inc(1)
}

func TestTheSDKsMetricsBecomePrometheusSeries(t *testing.T) {
	m := New()
	h := m.TemporalHandler().WithTags(map[string]string{"namespace": "default", "task_queue": "prmonitor"})
	h.WithTags(map[string]string{"activity_type": "prmonitor.Perform"}).Counter("temporal_activity_execution_failed").Inc(2)
	// the same name later with a tag it was not first seen with, and without one it was: one series
	// set, the extra tag dropped, the absent one empty
	h.WithTags(map[string]string{"activity_type": "prmonitor.ReadSnapshot", "status_code": "x"}).Counter("temporal_activity_execution_failed").Inc(1)
	h.Counter("temporal_activity_execution_failed").Inc(1)
	h.Gauge("temporal_num_pollers").Update(3)
	h.Timer("temporal_activity_execution_latency").Record(250 * time.Millisecond)
	h.WithTags(map[string]string{"workflow_type": monitorwf.WorkflowName}).Timer(monitorwf.MetricEventToAgent).Record(4 * time.Second)

	out := scrape(t, m)
	for _, want := range []string{
		`temporal_activity_execution_failed_total{activity_type="prmonitor.Perform",namespace="default",task_queue="prmonitor"} 2`,
		`temporal_activity_execution_failed_total{activity_type="prmonitor.ReadSnapshot",namespace="default",task_queue="prmonitor"} 1`,
		`temporal_activity_execution_failed_total{activity_type="",namespace="default",task_queue="prmonitor"} 1`,
		`temporal_num_pollers{namespace="default",task_queue="prmonitor"} 3`,
		`temporal_activity_execution_latency_seconds_count{namespace="default",task_queue="prmonitor"} 1`,
		MetricEventToAgent + `_bucket{namespace="default",task_queue="prmonitor",workflow_type="prmonitor.Monitor",le="5"} 1`,
		MetricEventToAgent + `_bucket{namespace="default",task_queue="prmonitor",workflow_type="prmonitor.Monitor",le="3"} 0`,
	} {
		assert.Contains(t, out, want)
	}
}

func TestANameTheRegistryRefusesIsDroppedNotPanicked(t *testing.T) {
	m := New()
	// prmonitor's own series holds this name; the SDK's would clash with it
	m.TemporalHandler().Counter("prmonitor_webhook_deliveries").Inc(1)
	m.TemporalHandler().Gauge("go_goroutines").Update(1)
	assert.NotPanics(t, func() { m.TemporalHandler().Counter("prmonitor_webhook_deliveries").Inc(1) })
}
