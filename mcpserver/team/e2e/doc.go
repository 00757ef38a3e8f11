// Package e2e holds the team deployment's end-to-end tests: the built prmonitor binary as
// `prmonitor worker` and `prmonitor serve --http`, the real Temporal server (tools/temporaldev),
// the fake GitHub, webhooks signed as GitHub signs them, and agents speaking MCP over Streamable
// HTTP with the official go-sdk client (docs/deploy.md). The tests skip under -short; the package
// has no code of its own.
package e2e
