package ops

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
)

// Temporal's SDK reports its metrics (requests to the frontend, pollers, workflow and activity
// task latencies, activity failures: temporal_*) and the workflow's own (EventToAgent) to a
// client.MetricsHandler. TemporalHandler is one over the registry, a few lines over the SDK's
// four-method interface; Temporal's tally bridge (go.temporal.io/sdk/contrib/tally) would bring
// uber-go/tally and a second Prometheus reporter for the same job.
//
// A counter is exported as NAME_total, a timer as a histogram NAME_seconds, a gauge as NAME. A
// series keeps the tag names it was first seen with: Prometheus wants one label set per name, and
// a later tag the first did not carry is dropped (an absent one is empty).

// TemporalHandler is the SDK's metrics handler over m (client.Options.MetricsHandler); nil m is
// the SDK's no-op handler.
func (m *Metrics) TemporalHandler() client.MetricsHandler {
	if m == nil {
		return client.MetricsNopHandler
	}
	return temporalHandler{vecs: m.temporal}
}

// temporalBuckets are the SDK's latency buckets (seconds): a task takes milliseconds, a poll
// up to a minute.
var temporalBuckets = []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

// eventBuckets are the event → agent latency's (seconds): the target is seconds, a slow path
// minutes.
var eventBuckets = []float64{.5, 1, 2, 3, 5, 7.5, 10, 15, 30, 60, 120, 300}

type temporalHandler struct {
	vecs *temporalVecs
	tags map[string]string
}

func (h temporalHandler) WithTags(tags map[string]string) client.MetricsHandler {
	merged := maps.Clone(h.tags)
	if merged == nil {
		merged = map[string]string{}
	}
	for k, v := range tags {
		merged[labelName(k)] = v
	}
	return temporalHandler{vecs: h.vecs, tags: merged}
}

func (h temporalHandler) Counter(name string) client.MetricsCounter {
	v := h.vecs.get(metricName(name, "_total"), kindCounter, h.tagNames())
	if v == nil {
		return client.MetricsNopHandler.Counter(name)
	}
	c := v.(*prometheus.CounterVec).With(h.labels(v))
	return counterFunc(func(d int64) {
		if d > 0 {
			c.Add(float64(d))
		}
	})
}

func (h temporalHandler) Gauge(name string) client.MetricsGauge {
	v := h.vecs.get(metricName(name, ""), kindGauge, h.tagNames())
	if v == nil {
		return client.MetricsNopHandler.Gauge(name)
	}
	g := v.(*prometheus.GaugeVec).With(h.labels(v))
	return gaugeFunc(g.Set)
}

func (h temporalHandler) Timer(name string) client.MetricsTimer {
	v := h.vecs.get(metricName(name, "_seconds"), kindTimer, h.tagNames())
	if v == nil {
		return client.MetricsNopHandler.Timer(name)
	}
	o := v.(*prometheus.HistogramVec).With(h.labels(v))
	return timerFunc(func(d time.Duration) { o.Observe(d.Seconds()) })
}

func (h temporalHandler) tagNames() []string {
	return slices.Sorted(maps.Keys(h.tags))
}

// labels are the handler's tags under the label names the series was first made with.
func (h temporalHandler) labels(v prometheus.Collector) prometheus.Labels {
	names := h.vecs.labelNames(v)
	out := make(prometheus.Labels, len(names))
	for _, n := range names {
		out[n] = h.tags[n]
	}
	return out
}

type counterFunc func(int64)

func (f counterFunc) Inc(d int64) { f(d) }

type gaugeFunc func(float64)

func (f gaugeFunc) Update(v float64) { f(v) }

type timerFunc func(time.Duration)

func (f timerFunc) Record(d time.Duration) { f(d) }

type metricKind int

const (
	kindCounter metricKind = iota
	kindGauge
	kindTimer
)

// temporalVecs are the SDK's series, made on first use.
type temporalVecs struct {
	reg *prometheus.Registry

	mu     sync.Mutex
	byName map[string]prometheus.Collector
	labels map[prometheus.Collector][]string
	bad    map[string]bool // names the registry refused (a clash): not tried again
}

func newTemporalVecs(reg *prometheus.Registry) *temporalVecs {
	return &temporalVecs{reg: reg, byName: map[string]prometheus.Collector{}, labels: map[prometheus.Collector][]string{}, bad: map[string]bool{}}
}

// get is the series of name, made with labels when it is new; nil when the registry refuses it.
func (t *temporalVecs) get(name string, kind metricKind, labels []string) prometheus.Collector {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.byName[name]; ok {
		return v
	}
	if t.bad[name] {
		return nil
	}
	help := "Temporal SDK metric " + name + " (docs.temporal.io/references/sdk-metrics)."
	var v prometheus.Collector
	switch kind {
	case kindCounter:
		v = prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	case kindGauge:
		v = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	default:
		buckets := temporalBuckets
		if name == MetricEventToAgent {
			buckets = eventBuckets
			help = "Time from a change on the pull request (a webhook delivery or the monitor's own read) to the action it led to, handed to the agent."
		}
		v = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	}
	if err := t.reg.Register(v); err != nil {
		t.bad[name] = true
		return nil
	}
	t.byName[name], t.labels[v] = v, labels
	return v
}

func (t *temporalVecs) labelNames(v prometheus.Collector) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.labels[v]
}

var notNameChars = regexp.MustCompile(`[^a-zA-Z0-9_]`)

// metricName is the SDK's name as a Prometheus one, with its unit's suffix.
func metricName(name, suffix string) string {
	name = notNameChars.ReplaceAllString(name, "_")
	if suffix != "" && !strings.HasSuffix(name, suffix) {
		name += suffix
	}
	return name
}

// labelName is a tag's name as a Prometheus label's.
func labelName(tag string) string {
	n := notNameChars.ReplaceAllString(tag, "_")
	if n == "" || (n[0] >= '0' && n[0] <= '9') || strings.HasPrefix(n, "__") {
		n = "tag_" + n
	}
	return n
}
