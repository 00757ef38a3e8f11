// Package prstatus answers one question about a pull request: what does it need now, and why?
//
// It holds the plain data of one PR (Snapshot, filled by the ghclient subpackage from exactly one
// GraphQL request), and Derive, a pure function from a Snapshot and the current time to Facts and
// the single top Attention, in the order of DESIGN §4. Nothing here does I/O or reads the clock, so
// a restart, a missed poll or a lost state file can never change the answer.
package prstatus
