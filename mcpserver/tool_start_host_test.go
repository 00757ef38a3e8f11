package mcpserver

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/prmonitor/prmonitor/mcpserver/contract"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// With the configured GitHub's web host known, a pull request URL on another host is refused
// before any request is sent, and without connecting; one on that host goes on to GitHub.
func TestStartRefusesAURLOnAnotherHostBeforeAnyRequest(t *testing.T) {
	var connects atomic.Int32
	h := newHarness(t, harnessOpts{cfg: func(c *Config) {
		c.WebHost = "github.com"
		connect := c.Connect
		c.Connect = func(ctx context.Context) (GitHub, error) { connects.Add(1); return connect(ctx) }
	}})
	h.apply(githubfake.OpenPR{Title: "x"})
	for _, tt := range []struct{ ref, says string }{
		{"https://evil.example/acme/widgets/pull/7", "https://evil.example/acme/widgets/pull/7 is on evil.example, but the configured GitHub is github.com"},
		{"https://github.com@evil.example/acme/widgets/pull/7", "names the host evil.example"},
		{"https://ghe.corp.example/acme/widgets/pull/7", "is on ghe.corp.example, but the configured GitHub is github.com"},
	} {
		raw, errText := h.call(contract.ToolStart, map[string]any{"pr": tt.ref})
		assert.Empty(t, string(raw), tt.ref)
		assert.Contains(t, errText, tt.says)
	}
	assert.Zero(t, connects.Load(), "nothing reached for GitHub")
	assert.Empty(t, h.fake.Requests(), "no request sent")

	raw, errText := h.call(contract.ToolStart, map[string]any{"pr": "https://github.com/acme/widgets/pull/7"})
	require.Empty(t, errText)
	assert.Contains(t, string(raw), "acme/widgets#7")
	assert.Equal(t, int32(1), connects.Load())
}
