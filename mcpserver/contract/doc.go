// Package contract is what an agent reads of prmonitor, whichever server answers it: the
// pr_monitor tools and their schemas, the checks of their arguments, the rendering and bounding of
// every output, the bound of a call for the client's host, questions as forms and the reading of
// their answers, and consent (who may answer which question, and when the agent's answer is the
// user's, relayed). It knows no transport and no engine: the stdio server (package mcpserver, over
// the watcher and the driver) and the team deployment's HTTP front end (mcpserver/team/front, over
// Temporal) are the two adapters built on it (docs/architecture.md).
package contract
