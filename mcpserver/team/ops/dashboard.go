package ops

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The Grafana dashboard (docs/grafana-dashboard.json) is built from the names this package and
// Temporal's SDK export; QueriedMetrics lists the series its queries read, so a test can hold that
// each one exists.

var (
	// nameWord is a word of a PromQL expression that may be a metric name.
	nameWord = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	// Taken out before: label matchers, groupings' label lists, ranges, strings, numbers.
	braces      = regexp.MustCompile(`\{[^}]*\}`)
	grouping    = regexp.MustCompile(`\b(by|without)\s*\([^)]*\)`)
	rangeVector = regexp.MustCompile(`\[[^\]]*\]`)
	quoted      = regexp.MustCompile(`"[^"]*"`)
	number      = regexp.MustCompile(`(^|[^a-zA-Z0-9_:])[0-9][0-9.]*([eE][+-]?[0-9]+)?`)
)

// histogramParts are the suffixes a histogram's series carry beside its name.
var histogramParts = []string{"_bucket", "_count", "_sum"}

type dashboardPanel struct {
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []dashboardPanel `json:"panels"` // a collapsed row's
}

// QueriedMetrics are the metric names the dashboard's queries read (a histogram's by its own
// name, without _bucket, _count or _sum), sorted.
func QueriedMetrics(dashboard []byte) ([]string, error) {
	var d dashboardPanel
	if err := json.Unmarshal(dashboard, &d); err != nil {
		return nil, fmt.Errorf("the dashboard: %w", err)
	}
	var out []string
	var walk func([]dashboardPanel)
	walk = func(ps []dashboardPanel) {
		for _, p := range ps {
			for _, t := range p.Targets {
				out = append(out, seriesIn(t.Expr)...)
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	slices.Sort(out)
	return slices.Compact(out), nil
}

// seriesIn are the metric names in a PromQL expression: its words that are neither a function
// (followed by "("), a keyword, a label (taken out with their braces and groupings) nor a
// Grafana variable.
func seriesIn(expr string) []string {
	expr = quoted.ReplaceAllString(expr, " ")
	expr = braces.ReplaceAllString(expr, " ")
	expr = grouping.ReplaceAllString(expr, " ")
	expr = rangeVector.ReplaceAllString(expr, " ")
	expr = number.ReplaceAllString(expr, "$1 ")
	var out []string
	for _, w := range nameWord.FindAllString(expr, -1) {
		if strings.HasSuffix(w, "(") || promKeywords[w] {
			continue
		}
		for _, suffix := range histogramParts {
			if trimmed, ok := strings.CutSuffix(w, suffix); ok {
				w = trimmed
				break
			}
		}
		out = append(out, w)
	}
	return out
}

var promKeywords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true,
	"group_right": true, "and": true, "or": true, "unless": true, "offset": true, "bool": true}
