// Package monitorwf is the team deployment's monitor: one Temporal workflow per pull request
// (docs/decisions/0002-temporal-past-one-machine.md), the same decisions as the embedded server's
// monitor on a durable engine.
//
// The workflow holds a statemachine.Position and steps the machine; GitHub is reached only
// through activities: ReadSnapshot (one snapshot of the pull request; the workflow derives the
// facts itself, with workflow.Now) and Perform (the machine's server-side work, implemented by the
// effects package: replies with markers, "did it land?" before a retry, the merge pinned to the
// head the user saw). Webhook deliveries arrive as the Changed signal (SignalWithStart creates the
// workflow), debounced so that a burst makes one read; a durable reconcile timer reads the pull
// request anyway, as the embedded watcher's safety refresh does, so a lost delivery is caught. The
// agent's next_step is the NextStep Update: validated by the machine before it is accepted (a bad
// event or a choice not offered never enters history), answered when the machine has something for
// the agent or after a bounded wait with polling. Status is a Query; Stop a signal. The workflow
// continues as new before its history grows large, carrying the position and its timers only.
//
// Nothing here reads the wall clock, iterates a map to decide, or talks to GitHub outside an
// activity: replaying a recorded history (testdata/histories) must step the same way, and a test
// holds the package to it.
package monitorwf
