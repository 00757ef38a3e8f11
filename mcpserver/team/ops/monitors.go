package ops

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// Monitors by state and by what they wait on are counted in Temporal's visibility store, where
// every worker's monitors are (a worker sees only the ones it happens to run): the front end
// exports them, counted again at most once per Every however often Prometheus scrapes.

// CountFunc counts the workflows a visibility query matches.
type CountFunc func(ctx context.Context, query string) (int64, error)

// VisibilityCount is CountFunc over a Temporal client.
func VisibilityCount(c client.Client, namespace string) CountFunc {
	return func(ctx context.Context, query string) (int64, error) {
		resp, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Namespace: namespace, Query: query})
		if err != nil {
			return 0, err
		}
		return resp.GetCount(), nil
	}
}

// monitorStates are the execution states a monitor's workflow can be in (label value, the
// visibility's ExecutionStatus). Completed is a monitor that saw its merge or was stopped.
var monitorStates = [][2]string{
	{"running", "Running"}, {"completed", "Completed"}, {"failed", "Failed"},
	{"terminated", "Terminated"}, {"timed_out", "TimedOut"}, {"canceled", "Canceled"},
}

// waitingOn are the values of the PrmonitorWaitingOn search attribute of a running monitor.
var waitingOn = []monitorwf.WaitingOn{monitorwf.WaitingOnGitHub, monitorwf.WaitingOnAgent, monitorwf.WaitingOnUser, monitorwf.WaitingOnNobody}

// MonitorCounts is the collector of MetricMonitors and MetricMonitorsWaiting.
type MonitorCounts struct {
	count  CountFunc
	every  time.Duration
	now    func() time.Time
	logger *slog.Logger

	states, waiting *prometheus.Desc

	mu      sync.Mutex
	at      time.Time
	byState map[string]int64
	byWait  map[string]int64
}

// NewMonitorCounts counts with count, again when a scrape comes more than every after the last.
func NewMonitorCounts(count CountFunc, every time.Duration, now func() time.Time, logger *slog.Logger) *MonitorCounts {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &MonitorCounts{count: count, every: every, now: now, logger: logger,
		states:  prometheus.NewDesc(MetricMonitors, "Monitors by the state of their workflow (running, or how it ended), as Temporal's visibility counts them.", []string{"state"}, nil),
		waiting: prometheus.NewDesc(MetricMonitorsWaiting, "Running monitors by what they wait on: github (watching, or doing GitHub work), agent, user, nobody.", []string{"on"}, nil),
	}
}

func (m *MonitorCounts) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.states
	ch <- m.waiting
}

func (m *MonitorCounts) Collect(ch chan<- prometheus.Metric) {
	states, waits := m.current()
	for k, v := range states {
		ch <- prometheus.MustNewConstMetric(m.states, prometheus.GaugeValue, float64(v), k)
	}
	for k, v := range waits {
		ch <- prometheus.MustNewConstMetric(m.waiting, prometheus.GaugeValue, float64(v), k)
	}
}

// current are the counts, counted again when they are older than every. A count that fails keeps
// its series out of the scrape (absent, not zero: an alert on zero monitors must not fire because
// visibility did not answer).
func (m *MonitorCounts) current() (map[string]int64, map[string]int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byState != nil && m.now().Sub(m.at) < m.every {
		return m.byState, m.byWait
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	byState, byWait := map[string]int64{}, map[string]int64{}
	monitors := fmt.Sprintf("WorkflowType = '%s'", monitorwf.WorkflowName)
	for _, s := range monitorStates {
		if n, err := m.count(ctx, fmt.Sprintf("%s AND ExecutionStatus = '%s'", monitors, s[1])); err == nil {
			byState[s[0]] = n
		} else {
			m.logger.Warn("could not count the monitors", "state", s[0], "err", err)
		}
	}
	for _, w := range waitingOn {
		q := fmt.Sprintf("%s AND ExecutionStatus = 'Running' AND %s = '%s'", monitors, monitorwf.SearchAttributeWaitingOn, w)
		if n, err := m.count(ctx, q); err == nil {
			byWait[string(w)] = n
		} else {
			m.logger.Warn("could not count the monitors", "waiting_on", w, "err", err)
		}
	}
	m.at, m.byState, m.byWait = m.now(), byState, byWait
	return byState, byWait
}
