// Package tests holds prmonitor's end-to-end tests: the built binary driven over stdio by an
// independent MCP client against the simulated GitHub. They are the slow tier: under
// go test -short they skip (and the binary is not built); only the static safety scans run.
package tests
