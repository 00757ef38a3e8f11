// Package rounds is prmonitor's memory across review rounds (docs/architecture.md#memory-across-review-rounds): what a reviewer said
// before, what prmonitor answered, and whether new feedback repeats an old concern.
//
//   - Categorize gives each review comment one concern Category from a fixed list, so feedback
//     from different rounds can be compared.
//   - PriorResolutions reads back the threads prmonitor answered in earlier rounds from its own
//     reply markers, in the snapshot already fetched: remembering costs no API call.
//   - Cluster decides whether new threads share a category, a file or a directory with one
//     another or with those prior resolutions, over the last few rounds only, and builds a
//     bounded ClusterBrief for the task.
//   - VerdictsSince records what reviewers said about an attempt (Verdict): their words, never
//     the diff.
//
// Everything here is pure: it reads prstatus.Facts (what prstatus.Derive concluded from one poll)
// and the time it is given, and keeps nothing between calls; the state machine keeps what must
// last.
//
// The reply marker's format (prstatus.Marker, ParseMarker, OurMarker) stays in prstatus, because
// knowing which comments are prmonitor's replies is needed where no memory is involved: by Derive
// (did prmonitor answer this thread?) and by the GitHub client (did this reply already land?).
// rounds imports prstatus, never the reverse: it reads the markers' round and category to
// remember.
package rounds
