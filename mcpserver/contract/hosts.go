package contract

import (
	"context"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// DefaultCallBound is how long a next_step call waits, outside a task, for a client that does not
// name a host we know: under the TypeScript SDK's default request timeout (60 s, which progress
// does not reset unless the client asks), so that any client built on it with its defaults gets
// its answer, with room to spare. (The Python SDK's default client sets no request timeout.)
const DefaultCallBound = 50 * time.Second

// TypeScriptSDKTimeout is the TypeScript SDK's default request timeout (DEFAULT_REQUEST_TIMEOUT_MSEC),
// the shortest limit of a client that does not name itself here.
const TypeScriptSDKTimeout = 60 * time.Second

// HostBound is one row of the table in docs/hosts.md ("How long a call waits"): a host, the names
// it gives in the initialize request's ClientInfo (name or title, compared case-insensitively),
// what cuts its tool calls (in words, and as a duration when it is known), and how long prmonitor
// lets a next_step call wait for it.
type HostBound struct {
	Host    string
	Names   []string
	Limit   string
	Timeout time.Duration
	Bound   time.Duration
}

// HostClaudeCode is Claude Code's row: the host channels are pushed to (push_mode.go).
const HostClaudeCode = "Claude Code"

// HostBounds is the table. A host missing here gets DefaultCallBound; so does a host whose limit we
// could not find (Cursor). The margins cover the last GitHub request of a call (bounded by the
// deadline too) and a loaded machine: a result that lands after the host gave up is lost.
func HostBounds() []HostBound {
	return []HostBound{
		{Host: "Copilot CLI", Names: []string{"github-copilot-developer", "copilot-cli", "GitHub Copilot CLI"},
			Limit: "180 s per tool call by default, then the call fails", Timeout: 180 * time.Second, Bound: 150 * time.Second},
		{Host: HostClaudeCode, Names: []string{"claude-code", "Claude Code"},
			Limit: "moves a call to the background after 2 min (CLAUDE_CODE_MCP_AUTO_BACKGROUND_MS)", Timeout: 2 * time.Minute, Bound: 100 * time.Second},
		{Host: "VS Code", Names: []string{"Visual Studio Code", "Visual Studio Code - Insiders", "Code - OSS", "VSCodium"},
			Limit: "5 min for a call made without tasks", Timeout: 5 * time.Minute, Bound: 240 * time.Second},
		{Host: "MCP Inspector (UI and CLI)", Names: []string{"mcp-inspector", "inspector-client", "inspector-cli"},
			Limit:   "the UI: 60 s in all (progress resets only its 10 s request timeout); the CLI: the TypeScript SDK's 60 s (error -32001)",
			Timeout: TypeScriptSDKTimeout, Bound: 50 * time.Second},
	}
}

// BoundFor picks the bound for a client from how it names itself: its host's row, else def. It
// returns the host's name too ("" for the default).
func BoundFor(rows []HostBound, def time.Duration, info mcp.Implementation) (string, time.Duration) {
	for _, row := range rows {
		for _, n := range row.Names {
			if strings.EqualFold(n, strings.TrimSpace(info.Name)) || (info.Title != "" && strings.EqualFold(n, strings.TrimSpace(info.Title))) {
				return row.Host, row.Bound
			}
		}
	}
	return "", def
}

// ClientInfo returns how the client named itself: per request in the 2026-07-28 era, at
// initialize before it.
func ClientInfo(ctx context.Context) mcp.Implementation {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern && info.ClientInfo != nil {
		return *info.ClientInfo
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return s.GetClientInfo()
	}
	return mcp.Implementation{}
}

// CallBound is how long a next_step call may wait for the client's host (docs/hosts.md): the
// host's name ("" when not known) and its bound.
func CallBound(ctx context.Context) (string, time.Duration) {
	return BoundFor(HostBounds(), DefaultCallBound, ClientInfo(ctx))
}
