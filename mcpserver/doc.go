// Package mcpserver is the stdio front end of prmonitor: the pr_monitor tools over MCP's stdio
// transport, calls that wait on the server's one watcher (prstatus/watch) for every monitor or for
// all of them at once (monitor_id=all), and elicitation and sampling in both protocol eras. What an
// agent reads (the tools and their schemas, argument checks, rendering and bounds, call bounds per
// host, questions as forms, consent) is the contract package's (mcpserver/contract), which the
// team deployment's HTTP front end (mcpserver/team/front) builds on too; the GitHub work the
// machine asks for is package effects'.
//
// A pr_monitor_next_step call reads top-down (tool_next_step.go): parse the call
// (next_step_call.go), find the monitor (package monitor's registry), begin the call (calls.go: it supersedes the
// call that drove the monitor, gets its deadline and its progress), drive the monitor (drive.go)
// and render where the driver stopped (render.go). The driver waits for the watcher's news
// (poll.go), does the server's GitHub work and waits out GitHub's rate limits (drive_github.go),
// and asks the user or the host's model (drive_client.go, roundtrip.go); it returns a typed
// outcome. The monitor (package monitor: its lifecycle, registry and persistence) is used through its
// methods only. monitor_id=all is the
// scheduler's (all.go; its order in all_order.go).
//
// Waiting need not cost the agent turns: next_step runs as an MCP task in both revisions
// (tasks.go for 2025-11-25, which mcp-go serves; tasks_ext.go for the 2026-07-28 extension, an
// adapter of ours in front of mcp-go on the stdio stream), and a Claude Code client is pushed a
// channel event when a monitor no call waits on needs the agent (push.go). A question that waits
// for a user who is away may show a desktop notification (notify.go).
//
// Each tool's handler is in its own file (tool_*.go); its definition is in the contract package's
// file of the same name.
package mcpserver
