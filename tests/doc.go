// Package tests holds prmonitor's end-to-end tests: the built binary driven over stdio by an
// independent MCP client against the simulated GitHub.
package tests
