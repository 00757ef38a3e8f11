// Package prstatus answers one question about a pull request: what does it need now, and why?
//
// It holds the plain data of one PR (Snapshot, filled by the ghclient subpackage from exactly one
// GraphQL request), and Derive, a pure function from a Snapshot and the current time to Facts and
// the single top Attention, in the order of docs/architecture.md#the-decision-order. Nothing here does I/O or reads the clock, so
// a restart, a missed poll or a lost state file can never change the answer.
//
// prstatus also owns the format of the hidden marker on every reply prmonitor posts (Marker,
// ParseMarker, OurMarker): telling prmonitor's replies from everyone else's is a fact of this poll,
// needed where no memory is involved (Derive, to know whether prmonitor answered a thread; the
// GitHub client, to see that a reply already landed before posting it again).
// What is remembered across review rounds through those markers (concern categories, clusters,
// prior resolutions, reviewers' verdicts) lives in the subpackage rounds, which imports prstatus;
// prstatus never imports it.
package prstatus
