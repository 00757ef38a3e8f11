// Package mcpserver is the stdio front end of prmonitor: the pr_monitor tools over MCP's stdio
// transport, calls that wait on the server's one watcher (prstatus/watch) for every monitor or for
// all of them at once (monitor_id=all), and elicitation and sampling in both protocol eras. What an
// agent reads (the tools and their schemas, argument checks, rendering and bounds, call bounds per
// host, questions as forms, consent) is the contract package's (mcpserver/contract), which the
// team deployment's HTTP front end (mcpserver/team/front) builds on too; the GitHub work the
// machine asks for is package effects'.
//
// What is left here is the stdio front end itself: the transport, the tools' handlers and their
// calls, and the monitor_id=all scheduler. A pr_monitor_next_step call reads top-down
// (tool_next_step.go): parse the call, find the monitor (package monitor's registry), begin the
// call (calls.go: it supersedes the call that drove the monitor, gets its deadline and its
// progress), drive the monitor (package driver, through the server as its Host:
// host.go) and render where the driver stopped (render.go). The monitor's lifecycle (its machine,
// registry and persistence) is package monitor's, used through its methods only; the driver,
// which waits for the watcher's news, does the server's GitHub work and asks the user or the
// host's model, is package driver's. monitor_id=all is the scheduler's (all.go; its order in
// all_order.go).
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
