package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			// Sent while the call waited; mcp-go writes notifications from a goroutine of their own, so
			// on a loaded machine one may reach the client after the result.
			assert.Eventually(t, func() bool {
				h.mu.Lock()
				defer h.mu.Unlock()
				return len(h.progress) > 0
			}, 10*time.Second, time.Millisecond, "progress notifications while blocked")
		})
	}
}

// TestInitializeDeclaresOnlyWhatTheServerOffers: sampling and elicitation are client capabilities;
// the server offers tools, and says nothing of the others.
func TestInitializeDeclaresOnlyWhatTheServerOffers(t *testing.T) {
	for _, proto := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(proto, func(t *testing.T) {
			srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }})
			require.NoError(t, err)
			init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + proto +
				`","capabilities":{"sampling":{},"elicitation":{}},"contract.ClientInfo":{"name":"t","version":"1"}}}`
			raw, err := json.Marshal(srv.MCP().HandleMessage(t.Context(), json.RawMessage(init)))
			require.NoError(t, err)
			var resp struct {
				Result struct {
					Capabilities map[string]json.RawMessage `json:"capabilities"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(raw, &resp), string(raw))
			caps := resp.Result.Capabilities
			require.Contains(t, caps, "tools", string(raw))
			assert.NotContains(t, caps, "sampling")
			assert.NotContains(t, caps, "elicitation")
		})
	}
}
