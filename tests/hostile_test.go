package tests

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// Hostile input, end to end: what a reviewer, a CI log or a pasted link can put in front of the
// server reaches the agent cleaned, fenced, bounded and without the token, or is refused.

func TestStartRefusesAReferenceOnAnotherHost(t *testing.T) {
	w := newWorld(t, profiles[2])
	w.apply(githubfake.OpenPR{Title: "Add retries"})
	w.launch()
	for _, tt := range []struct{ ref, named string }{
		{"https://evil.example/acme/widgets/pull/7", "is on evil.example, but the configured GitHub is github.com"},
		{"https://github.com@evil.example/acme/widgets/pull/7", "names the host evil.example"},
		{"https://ghe.corp.example/acme/widgets/pull/7", "is on ghe.corp.example, but the configured GitHub is github.com"},
	} {
		raw, errText := w.call("pr_monitor_start", map[string]any{"pr": tt.ref})
		require.Empty(t, string(raw), tt.ref)
		require.Contains(t, errText, tt.named)
	}
	raw, _ := w.call("pr_monitor_status", map[string]any{})
	require.JSONEq(t, `{"monitors":[]}`, string(raw), "no monitor was started for a refused reference")
	w.start() // the same pull request on the configured GitHub's own URL
}
