package ops

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// The series prmonitor itself exports (Temporal's SDK adds its own, temporal_*: temporal.go).
// docs/grafana-dashboard.json reads these names; a test holds that every name it queries exists.
const (
	MetricHTTPRequests = "prmonitor_http_requests_total"
	MetricHTTPDuration = "prmonitor_http_request_duration_seconds"
	MetricWebhook      = "prmonitor_webhook_deliveries_total"
	// MetricEventToAgent is the workflow's timer (monitorwf.MetricEventToAgent) as TemporalHandler
	// exports it.
	MetricEventToAgent     = "prmonitor_event_to_agent_seconds"
	MetricMonitors         = "prmonitor_monitors"
	MetricMonitorsWaiting  = "prmonitor_monitors_waiting"
	MetricPointsSpent      = "prmonitor_github_points_spent_total"
	MetricPointsUsed       = "prmonitor_github_points_used"
	MetricPointsRemaining  = "prmonitor_github_points_remaining"
	MetricPointsLimit      = "prmonitor_github_points_limit"
	MetricActivityAttempts = "prmonitor_activity_attempts_total"
	MetricActivityRetries  = "prmonitor_activity_retries_total"
)

// Metrics is one process's registry and prmonitor's own series in it. A nil *Metrics records
// nothing, so a component built without one (a test, the embedded server) needs no branch.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	webhook      *prometheus.CounterVec

	pointsSpent     *prometheus.CounterVec
	pointsUsed      *prometheus.GaugeVec
	pointsRemaining *prometheus.GaugeVec
	pointsLimit     *prometheus.GaugeVec

	activityAttempts *prometheus.CounterVec
	activityRetries  *prometheus.CounterVec

	temporal *temporalVecs
}

// New returns a registry with the Go runtime's and the process's collectors and prmonitor's series.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{reg: reg, temporal: newTemporalVecs(reg)}
	f := promauto{reg}
	m.httpRequests = f.counter(MetricHTTPRequests, "HTTP requests served, by route (the pattern, never the path) and status code.", "route", "code")
	m.httpDuration = f.histogram(MetricHTTPDuration, "Time to serve an HTTP request, by route (a waiting next_step call lasts as long as it waits).",
		[]float64{.005, .025, .1, .5, 1, 5, 30, 120, 600}, "route")
	m.webhook = f.counter(MetricWebhook, "GitHub webhook deliveries, by event and result.", "event", "result")
	m.pointsSpent = f.counter(MetricPointsSpent, "GraphQL points this worker's GitHub reads cost, by token (its short id, never the token).", "token")
	m.pointsUsed = f.gauge(MetricPointsUsed, "GraphQL points the token used this hour, every process sharing it included (GitHub's counters).", "token")
	m.pointsRemaining = f.gauge(MetricPointsRemaining, "GraphQL points the token has left this hour (GitHub's counters).", "token")
	m.pointsLimit = f.gauge(MetricPointsLimit, "The token's hourly GraphQL points.", "token")
	m.activityAttempts = f.counter(MetricActivityAttempts, "Activity attempts this worker ran, by activity and result (ok, failed).", "activity", "result")
	m.activityRetries = f.counter(MetricActivityRetries, "Activity attempts that were retries (attempt 2 and later), by activity.", "activity")
	for _, a := range activities {
		m.activityAttempts.WithLabelValues(a, "ok")
		m.activityAttempts.WithLabelValues(a, "failed")
		m.activityRetries.WithLabelValues(a)
	}
	return m
}

// Registry is the process's registry, for a collector of its own (MonitorCounts).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry at /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Webhook counts one delivery.
func (m *Metrics) Webhook(event, result string) {
	if m == nil {
		return
	}
	m.webhook.WithLabelValues(labelValue(event), labelValue(result)).Inc()
}

// Points records GitHub's counters for token (a short non-secret id): spent is what the answer
// cost (0 when it did not say), used, remaining and limit the hour's.
func (m *Metrics) Points(token string, spent, remaining, limit int) {
	if m == nil || limit <= 0 {
		return
	}
	if spent > 0 {
		m.pointsSpent.WithLabelValues(token).Add(float64(spent))
	}
	m.pointsUsed.WithLabelValues(token).Set(float64(limit - remaining))
	m.pointsRemaining.WithLabelValues(token).Set(float64(remaining))
	m.pointsLimit.WithLabelValues(token).Set(float64(limit))
}

// Attempt counts one activity attempt (attempt counts from 1).
func (m *Metrics) Attempt(activity string, attempt int32, failed bool) {
	if m == nil {
		return
	}
	result := "ok"
	if failed {
		result = "failed"
	}
	m.activityAttempts.WithLabelValues(activity, result).Inc()
	if attempt > 1 {
		m.activityRetries.WithLabelValues(activity).Inc()
	}
}

// promauto registers series on one registry.
type promauto struct{ reg *prometheus.Registry }

func (p promauto) counter(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	p.reg.MustRegister(v)
	return v
}

func (p promauto) gauge(name, help string, labels ...string) *prometheus.GaugeVec {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	p.reg.MustRegister(v)
	return v
}

func (p promauto) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	p.reg.MustRegister(v)
	return v
}

// notLabelChars are the characters a label value from outside (a webhook's event name) loses: a
// series per odd header would grow without bound.
var notLabelChars = regexp.MustCompile(`[^a-z0-9_.]`)

// labelValue is v bounded to a short word.
func labelValue(v string) string {
	v = notLabelChars.ReplaceAllString(strings.ToLower(v), "")
	if len(v) > 40 {
		v = v[:40]
	}
	if v == "" {
		return "unknown"
	}
	return v
}

// activities are the activities a worker runs, whose attempt and retry series exist from the
// start (at 0), so a dashboard or an alert reads a value before the first failure.
var activities = []string{monitorwf.ActivityReadSnapshot, monitorwf.ActivityPerform, monitorwf.ActivitySearch}
