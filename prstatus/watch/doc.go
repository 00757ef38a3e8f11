// Package watch is prmonitor's watcher: one per token and GitHub host, it watches every monitored
// pull request whether or not a tool call waits, and publishes what changed. Tool calls wait on
// its updates (Watcher.Wait, Watcher.Subscribe); none polls GitHub itself.
//
// # How it looks
//
// Change detection is batched: one GraphQL request (ghclient.Client.FingerprintsOf) reads a
// fingerprint of up to 100 pull requests, aliased per repository and pull request: plain fields
// (the base branch's tip among them), plus, per pull request, the check counts while its checks
// may still move and the resolved state of its review threads when it has any, which GitHub moves
// no timestamp for. Each is one connection by GitHub's formula: a batch costs 1 point up to 149
// of them (100 quiet pull requests under review). A pull request whose fingerprint moved gets a
// full one-query snapshot (ghclient.Client.Snapshot) at once; the others get one only for a slow
// safety refresh, or a faster hot refresh while they changed lately. A partly answered batch
// keeps what it got and looks at the rest again at once.
//
// Which field catches which event a monitor acts on (TestEveryEventAMonitorActsOnIsCaught holds
// it, event by event, against the fake GitHub, which moves updatedAt as GitHub does: on edits of
// the pull request, not on what GitHub computes nor on a thread's resolve):
//
//	push (new head)                 updatedAt, headRefOid
//	review submitted                updatedAt (reviewDecision when it moves)
//	new review thread               updatedAt, totalCommentsCount
//	reply in a thread               updatedAt, totalCommentsCount
//	thread resolved or unresolved   reviewThreads.isResolved
//	check started or completed      checkRunCountsByState (statusCheckRollup.state when it moves)
//	base branch moved on            baseRef.target.oid (mergeable, mergeStateStatus)
//	merged or closed elsewhere      updatedAt, state, mergeStateStatus
//	draft toggled                   updatedAt, isDraft, mergeStateStatus
//
// What GitHub computes late is waited for (late.go): mergeability that reads UNKNOWN is looked at
// again in every batch and, when it stays so, GitHub is asked once to compute it (a REST GET); a
// head without checks is published again when the grace for its checks to register ends.
//
// # Budget
//
// The governor (governor.go) spends at most Config.Budget (25 %) of the token's hourly points: it
// reads rateLimit from every response, spreads the batches of a cycle evenly with jitter, sends
// nothing while the token's ghclient.Gate holds (Retry-After, secondary limits, resets; the gate
// persists its holds across restarts), caps requests in flight, and persists its spend
// (SpendStore) so a restart keeps the hour's count.
//
// # Restarts
//
// What the watcher has seen of each pull request (the fingerprint of its last full read and when
// that was) persists through Config.Seen (seen.go): a restarted watcher reads at once only the
// pull requests whose fingerprint moved while it was down; the others wait for a poke, their
// safety refresh (counted from the saved read), or a change. See docs/watcher.md.
//
// # Clocks
//
// The watcher never compares GitHub's times with its own: the first fingerprint after a snapshot
// is compared with the snapshot's updatedAt (prstatus.Snapshot.UpdatedAt). Update.At is on the
// watcher's clock, stamped when the snapshot's request went, so a poke's update is never stamped
// before the poke. Until a response carries GitHub's rateLimit the watcher assumes DefaultLimit;
// the first that does re-paces the next batch.
//
// Time is injected (Config.Now, Config.After, Config.Rand): tests and the load test drive the
// watcher with a fake clock.
package watch
