package ops

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/team/monitorwf"
)

// DashboardFile is the dashboard, from this package's directory.
var dashboardFile = filepath.Join("..", "..", "..", "docs", "grafana-dashboard.json")

func TestQueriedMetricsFindsTheSeriesOfAQuery(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`sum by (event, result) (rate(prmonitor_webhook_deliveries_total[$__rate_interval]))`, []string{"prmonitor_webhook_deliveries_total"}},
		{`histogram_quantile(0.95, sum by (le) (rate(prmonitor_event_to_agent_seconds_bucket{job="w"}[5m])))`, []string{"prmonitor_event_to_agent_seconds"}},
		{`max by (on) (prmonitor_monitors_waiting) / ignoring(on) group_left sum(prmonitor_monitors{state="running"})`,
			[]string{"prmonitor_monitors", "prmonitor_monitors_waiting"}},
		{`min without (instance) (process_resident_memory_bytes) > 1e9`, []string{"process_resident_memory_bytes"}},
	}
	for _, tt := range tests {
		got, err := QueriedMetrics([]byte(`{"panels":[{"type":"row","panels":[{"targets":[{"expr":` + quote(tt.expr) + `}]}]}]}`))
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.expr)
	}
	_, err := QueriedMetrics([]byte("not json"))
	assert.Error(t, err)
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// Every series the dashboard queries exists: prmonitor's own (and the Go runtime's and the
// process's) in a registry that saw one of each; Temporal's SDK's are held by the end-to-end test
// that scrapes a real worker (mcpserver/team/e2e). And every series of prmonitor's is on it.
func TestEveryMetricTheDashboardQueriesExists(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	queried, err := QueriedMetrics(b)
	require.NoError(t, err)
	require.NotEmpty(t, queried)

	m := New()
	m.Webhook("pull_request", "signalled")
	m.Points("sha256:0badc0de", 3, 4990, 5000)
	m.Requests(http.NotFoundHandler()).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
	m.TemporalHandler().Timer(monitorwf.MetricEventToAgent).Record(time.Second)
	m.Registry().MustRegister(NewMonitorCounts(func(context.Context, string) (int64, error) { return 1, nil }, time.Minute, time.Now, nil))
	families, err := m.Registry().Gather()
	require.NoError(t, err)
	var exported []string
	for _, f := range families {
		exported = append(exported, f.GetName())
	}

	for _, name := range queried {
		if strings.HasPrefix(name, "temporal_") {
			continue
		}
		assert.Contains(t, exported, name, "the dashboard queries %s, which nothing exports", name)
	}
	for _, name := range exported {
		if strings.HasPrefix(name, "prmonitor_") {
			assert.True(t, slices.Contains(queried, name), "%s is exported but on no panel", name)
		}
	}
}
