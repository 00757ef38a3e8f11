// Package store keeps what a monitor must remember across restarts of the server: one record
// file per monitor (the state machine's position and a little about the monitor), written
// atomically after every transition, and an append-only event log beside it for debugging.
//
// GitHub is the source of truth for everything it knows; a record holds only what it cannot
// tell us. A record that cannot be read back (corrupt, truncated, written by a newer build) is
// set aside under a new name with a warning and the monitor starts fresh: the server never
// crashes on its own state.
//
// One process writes a monitor at a time. Claim takes a cross-process lock on the monitor;
// every write (Save, SetAside, Append) and Load need it, so two servers sharing one state
// directory can watch different pull requests, and the same pull request in two servers is
// refused with a clear error naming the other process.
//
// Layout of the directory, for a monitor "acme/widgets#7" (name "acme.widgets.7-167330bb"):
//
//	acme.widgets.7-167330bb.json                            the record (0600)
//	acme.widgets.7-167330bb.lock                            the claim's lock; holds the owner's PID
//	acme.widgets.7-167330bb.events.jsonl                    the event log, one JSON object a line
//	acme.widgets.7-167330bb.events.jsonl.1                  the previous event log, after rotation
//	acme.widgets.7-167330bb.json.corrupt-20261120T090000Z   a record set aside
//	.acme.widgets.7-167330bb.json.tmp-123456                a save in progress (or interrupted)
//	ratelimit.json                                          GitHub's rate-limit holds, by API (GateStore)
//	spend.json                                              what the watcher spends of each token's points, by API (SpendStore)
//	watched.json                                            what the watcher last saw of each pull request (fingerprint, last read), by API
//	failures.json                                           CI failure signatures per repository and the runs they were seen in (flaky or not), by API
//	server-4242.json                                        a running server's marker (pid, start, version, API); gone when it stops
//	seal.key                                                the key that seals multi-round-trip request states (0600)
//
// An event carries a sentence and, for a step of the state machine or the server's GitHub work,
// typed fields in the machine's own names (Event), which `prmonitor status` reads. Events are
// written as given: callers must never put secrets in them. A ghclient.Token
// redacts itself when marshalled, so an event that holds one by mistake still does not leak it.
package store
