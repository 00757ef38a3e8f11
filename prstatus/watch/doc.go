// Package watch is prmonitor's watcher: one per token and GitHub host, it watches every monitored
// pull request whether or not a tool call waits, and publishes what changed. Tool calls wait on
// its updates (Watcher.Wait, Watcher.Subscribe); none polls GitHub itself.
//
// # How it looks
//
// Change detection is batched: one GraphQL request (ghclient.Client.Fingerprints) reads a
// fingerprint of up to 100 pull requests, aliased per repository and pull request, plain fields
// only but for one count connection, which costs 1 point by GitHub's formula. A pull request whose
// fingerprint moved gets a full one-query snapshot (ghclient.Client.Snapshot) at once; the others
// get one only for a slow safety refresh, or a faster hot refresh while they changed lately.
//
// Which field catches which event a monitor acts on (TestEveryEventAMonitorActsOnIsCaught holds
// it, event by event, against the fake GitHub):
//
//	push (new head)                      headRefOid, updatedAt
//	review submitted                     updatedAt (reviewDecision when it changes)
//	new review thread                    totalCommentsCount, updatedAt
//	reply in a thread                    totalCommentsCount, updatedAt
//	thread resolved                      nothing cheap: the hot refresh (a resolve follows activity)
//	                                     or the safety refresh; GitHub's updatedAt is not relied on
//	check started / completed            statusCheckRollup.contexts.checkRunCountsByState (and the
//	                                     rollup state)
//	base moved, conflict appears         baseRefOid, mergeable, mergeStateStatus
//	merged or closed elsewhere           state, updatedAt
//	draft toggled                        isDraft, updatedAt
//
// # Budget
//
// The governor (governor.go) spends at most Config.Budget (25 %) of the token's hourly points: it
// reads rateLimit from every response, spreads the batches of a cycle evenly with jitter, sends
// nothing while the token's ghclient.Gate holds (Retry-After, secondary limits, resets; the gate
// persists its holds across restarts), caps requests in flight, and persists its spend
// (SpendStore) so a restart keeps the hour's count. See docs/watcher.md.
//
// Time is injected (Config.Now, Config.After, Config.Rand): tests and the load test drive the
// watcher with a fake clock.
package watch
