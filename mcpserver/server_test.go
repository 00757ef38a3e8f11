package mcpserver

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/prmonitor/prmonitor/prstatus/githubfake"
	"github.com/prmonitor/prmonitor/statemachine"
)

var eras = []string{"2025-11-25", "2026-07-28"}

func TestStartReadyAndBlockUntilMaxBlock(t *testing.T) {
	for _, proto := range eras {
		t.Run(proto, func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: proto, cfg: func(c *Config) { c.MaxBlock = 150 * time.Millisecond }})
			h.apply(githubfake.OpenPR{Title: "Add retries"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
			out := h.start()
			assert.Equal(t, "acme/widgets#7", out.MonitorID)
			assert.False(t, out.Resumed)
			assert.Equal(t, statemachine.Untrusted("Add retries").Fenced(), out.Title, "the title is GitHub text: fenced")
			assert.Contains(t, out.Next, "pr_monitor_next_step")

			act := h.next("ready", "", nil)
			assert.Equal(t, "polling", act.Action, "CI is running: nothing for the agent")
			assert.Contains(t, act.Message, "Still watching")
			h.mu.Lock()
			assert.NotEmpty(t, h.progress, "progress notifications while blocked")
			h.mu.Unlock()
		})
	}
}
