// Package mcpserver is the MCP face of prmonitor: the pr_monitor tools over stdio, the blocking poll
// loop, the server-side GitHub actions, and elicitation and sampling in both protocol eras. It is thin:
// it translates between MCP and the state machine.
package mcpserver
