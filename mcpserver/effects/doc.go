// Package effects does the GitHub work the state machine asks for (a statemachine.ActionServer):
// replies, resolving threads, review requests, re-runs, log tails, updating the branch, and the
// merge, re-checked against GitHub first. It knows nothing of MCP: the MCP server (package
// mcpserver) calls it inside a tool call, and a Temporal activity can call it as it is. Inputs and
// outcomes are plain values (Work, Outcome); GitHub is an interface; time is the caller's.
//
// Doing the same work twice is safe, so a caller may retry whatever did not finish: a reply carries
// a marker and is not posted again once it landed, the client checks whether a write landed
// before it retries it, and a merge or a branch update is pinned to the head the user saw.
//
// This package is the only place prmonitor sends a merge from (merge.go; tests/safety_static_test.go
// keeps it so). See docs/architecture.md.
package effects
