// Package ghclient talks to GitHub for prmonitor: the one-request GraphQL snapshot of a pull
// request (Client.Snapshot), the batched fingerprints the watcher (package watch) looks for
// changes with (Client.FingerprintsOf: up to 100 pull requests in one request, with the check
// counts and thread states asked for, 1 point up to OnePointConnections), the REST GET that
// starts GitHub's mergeability computation (AskMergeability), the server-side work (HeadSHA,
// PostReply, ResolveThread, RequestReviews, RerunFailedJobs, RerunWorkflow, JobLogTail, Merge: see
// work.go; EnableAutoMerge, DisableAutoMerge and Enqueue: see automerge.go), the dispatcher's
// reads of a whole repository (RepoSnapshot, ThreadReplies, UnassignedIssues: see repo.go), and
// the HTTP plumbing that every GitHub call shares (Client.HTTPClient). GraphQL goes through
// githubv4, REST through google/go-github (Client.REST, rest.go), both on that plumbing; every
// REST request names the pinned API version (X-GitHub-Api-Version, RESTAPIVersionFor).
//
// The transport authenticates requests to the configured GitHub hosts only, names prmonitor in the
// User-Agent, records the rate-limit headers, turns failures into typed errors (ErrUnauthorized,
// ErrForbidden, ErrNotFound, ErrUnavailable, *RateLimitError) and retries idempotent requests
// (REST GET and HEAD, and GraphQL queries: the query client marks them so where it sends them;
// the transport never reads a document to guess) with exponential backoff. Every request to GitHub
// passes the token's Gate (gate.go): after a rate-limited answer nothing is sent before the time
// GitHub named, and no wait (a rate limit, a backoff, an attempt) outlasts the request context's
// deadline: the caller gets the cause at once and schedules the rest. go-github's own rate-limit
// checks are off, so the Gate alone decides. The Gate also paces the token's writes (pace.go): a
// second between two, content creation under GitHub's per-minute and per-hour limits, and what
// cannot wait is held back (Gate.WritePacing says until when). A RequestLog given with a request's
// context counts its attempts and the timed-out ones, which GitHub counts against the primary
// limit. Writes are never retried by the transport: each work
// method decides through one loop (Client.write, mutate.go), which checks whether a failed attempt
// landed before trying again (a reply is looked for before it is re-posted); a merge is never
// re-sent. Nothing in this package can close a pull request or delete a branch.
//
// Every error the package returns is one line and never contains the token. Every string from
// GitHub (text users wrote, names, paths, URLs, job logs) passes through package sanitize once, at
// ingestion (convert.go), which also removes the token in any of its obvious encodings: a failing
// job's log or a comment may print it.
//
// Time and sleeping are injected (Config.Now, Config.Sleep) so tests run instantly.
package ghclient
