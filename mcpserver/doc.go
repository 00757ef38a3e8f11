// Package mcpserver is the MCP face of prmonitor: the pr_monitor tools over stdio, calls that wait
// on the server's one watcher (prstatus/watch) for every monitor or for all of them at once
// (monitor_id=all), the server-side GitHub actions, and elicitation and sampling in both protocol
// eras. It is thin: it translates between MCP and the state machine.
package mcpserver
