package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/prmonitor/prmonitor/mcpserver/contract"
	"github.com/prmonitor/prmonitor/prstatus/githubfake"
)

// TestEachHostGetsACallBoundUnderItsLimit: the bound chosen from the contract.ClientInfo each host sends.
func TestEachHostGetsACallBoundUnderItsLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		info  mcp.Implementation
		host  string
		bound time.Duration
	}{
		{"Copilot CLI", mcp.Implementation{Name: "github-copilot-developer", Version: "1.0.57"}, "Copilot CLI", 150 * time.Second},
		{"Claude Code", mcp.Implementation{Name: "claude-code", Version: "2.1.250"}, "Claude Code", 100 * time.Second},
		{"VS Code", mcp.Implementation{Name: "Visual Studio Code", Version: "1.106.0"}, "VS Code", 240 * time.Second},
		{"VS Code Insiders", mcp.Implementation{Name: "Visual Studio Code - Insiders"}, "VS Code", 240 * time.Second},
		{"MCP Inspector", mcp.Implementation{Name: "mcp-inspector", Version: "0.17.0"}, "MCP Inspector (UI and CLI)", 50 * time.Second},
		{"MCP Inspector's UI", mcp.Implementation{Name: "inspector-client", Version: "0.17.0"}, "MCP Inspector (UI and CLI)", 50 * time.Second},
		{"MCP Inspector's CLI", mcp.Implementation{Name: "inspector-cli", Version: "0.5.1"}, "MCP Inspector (UI and CLI)", 50 * time.Second},
		{"the Python SDK's default client", mcp.Implementation{Name: "mcp", Version: "0.1.0"}, "", contract.DefaultCallBound},
		{"a host named by its title only", mcp.Implementation{Name: "x", Title: "Claude Code"}, "Claude Code", 100 * time.Second},
		{"names compare without case", mcp.Implementation{Name: "Claude-Code"}, "Claude Code", 100 * time.Second},
		{"Cursor: its limit is not published", mcp.Implementation{Name: "cursor-vscode", Version: "1.0.0"}, "", contract.DefaultCallBound},
		{"an unknown host", mcp.Implementation{Name: "my-agent"}, "", contract.DefaultCallBound},
		{"no contract.ClientInfo", mcp.Implementation{}, "", contract.DefaultCallBound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, bound := contract.BoundFor(contract.HostBounds(), contract.DefaultCallBound, tc.info)
			assert.Equal(t, tc.host, host)
			assert.Equal(t, tc.bound, bound)
		})
	}
	assert.Less(t, contract.DefaultCallBound, contract.TypeScriptSDKTimeout, "a client built on the TypeScript SDK with its defaults, whatever it is named")
	for _, row := range contract.HostBounds() {
		assert.LessOrEqual(t, row.Bound, 240*time.Second, "%s: a bound stays well under any limit we know", row.Host)
		if assert.Positive(t, row.Timeout, "%s: the limit the row is for", row.Host) {
			assert.Less(t, row.Bound, row.Timeout-5*time.Second, "%s: the bound is under the host's own limit, with room", row.Host)
		}
	}
}

// TestMaxBlockWinsOverTheHostBound: --max-block (Config.MaxBlock) is an explicit choice; the host's
// bound applies only when it is unset.
func TestMaxBlockWinsOverTheHostBound(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxBlock time.Duration
		want     time.Duration
	}{
		{"unset: the host's bound", 0, 100 * time.Second},
		{"set lower", 20 * time.Second, 20 * time.Second},
		{"set higher", 10 * time.Minute, 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }, MaxBlock: tc.maxBlock})
			require.NoError(t, err)
			ctx := server.WithRequestProtocolInfo(t.Context(), &server.RequestProtocolInfo{Modern: true, ProtocolVersion: "2026-07-28",
				ClientInfo: &mcp.Implementation{Name: "claude-code"}})
			assert.Equal(t, tc.want, srv.callBound(ctx))
		})
	}
}

// TestProgressDefaultKeepsHostsHearingWithinFifteenSeconds: docs/hosts.md#how-long-a-call-waits, progress every ≤ 15 s.
func TestProgressDefaultKeepsHostsHearingWithinFifteenSeconds(t *testing.T) {
	srv, err := New(Config{Connect: func(context.Context) (GitHub, error) { return nil, nil }})
	require.NoError(t, err)
	assert.LessOrEqual(t, srv.cfg.ProgressEvery, 15*time.Second)
	assert.False(t, srv.cfg.maxBlockSet, "no fixed bound by default: the host's")
	assert.Equal(t, contract.DefaultCallBound, srv.cfg.MaxBlock, "read as a bound, an unset MaxBlock is the default one")
}

// TestACallFromAKnownHostReturnsPollingByItsHostsBound: over stdio, a client naming itself
// claude-code (its row's bound made short for the test) gets polling by that bound while CI runs,
// and a client no row names gets the default bound.
func TestACallFromAKnownHostReturnsPollingByItsHostsBound(t *testing.T) {
	rows := []contract.HostBound{{Host: "Claude Code", Names: []string{"claude-code"}, Bound: 150 * time.Millisecond}}
	for _, tc := range []struct {
		client string
		want   time.Duration
	}{
		{"claude-code", 150 * time.Millisecond},
		{"some-other-agent", 400 * time.Millisecond},
	} {
		t.Run(tc.client, func(t *testing.T) {
			h := newHarness(t, harnessOpts{protocol: "2025-11-25", client: tc.client, cfg: func(c *Config) {
				c.MaxBlock = 0
				c.HostBounds = rows
				c.DefaultBound = 400 * time.Millisecond
			}})
			h.apply(githubfake.OpenPR{Title: "x"}, githubfake.ChecksQueued{Jobs: []string{"test"}})
			h.start()
			began := time.Now()
			act := h.next("ready", "", nil)
			took := time.Since(began)
			require.Equal(t, "polling", act.Action, "CI is running: nothing for the agent")
			assert.Contains(t, act.Message, "Still watching")
			assert.GreaterOrEqual(t, took, tc.want, "the call waited its bound")
			assert.Less(t, took, tc.want+2*time.Second, "and returned by it")
		})
	}
}
