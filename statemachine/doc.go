// Package statemachine decides, deterministically, what a monitor does next. It is pure: no I/O, no
// wall clock (time is passed in), no GitHub or MCP types.
package statemachine

//go:generate go run ../cmd/prmonitor fsm --markdown --out ../docs/state-machine.md
