// Package githubfake is an in-memory, scenario-driven GitHub for prmonitor's tests and demo.
//
// It serves GitHub's GraphQL API (POST /graphql and /api/graphql) and the REST endpoints
// prmonitor uses (at / and under /api/v3), from plain Go data (Repository, PullRequest, Commit,
// Review, Thread, CheckRun, ...) that scenarios change over a fake clock. Everything is
// deterministic: ids, oids and times depend only on what was done, in what order.
//
// # Starting it
//
//	f, err := githubfake.New(githubfake.WithViewer("dev"), githubfake.WithToken("t"))
//	base := f.Start()              // loopback server; GraphQL at base+"/graphql"; f.Close() stops it
//	client := f.HTTPClient()       // or: in-process transport, no sockets (any base URL, e.g. InProcessURL)
//	handler := f.Handler()         // or: mount it yourself
//
// Requests need "Authorization: Bearer <token>" (or "token <token>"); any non-empty token works
// unless WithToken names one. Otherwise: 401 {"message":"Bad credentials"}.
//
// # GraphQL
//
// Every document is validated against GitHub's public schema (package ghschema); an invalid one
// gets HTTP 200 {"errors":[{message, locations}]} as on GitHub. Valid documents are executed
// generically: aliases, variables, fragments and inline fragments, @skip/@include, __typename,
// nested connections with first/last/after/before (first or last required, 1..100, as GitHub
// enforces), nodes, edges{node cursor}, pageInfo and totalCount. A valid field the fake does not
// model is a loud GraphQL error "githubfake: PullRequest.foo is not implemented", never a silent
// null. Missing repositories and pull requests give GitHub's NOT_FOUND errors.
//
// Modelled roots: repository(owner,name){pullRequest(number), pullRequests, issues(states,
// labels, orderBy CREATED_AT)}, node(id), nodes(ids), viewer, user(login), rateLimit (GitHub's
// cost formula; remaining goes down). Issues and pull requests share their conversation side:
// labels, assignees, comments (issue comments) and timelineItems (LABELED_EVENT and
// UNLABELED_EVENT only; any other item type is a loud error).
// Mutations: resolveReviewThread, unresolveReviewThread, addPullRequestReviewThreadReply (with
// WithPendingReplies the reply lands in a PENDING review, invisible in the thread: GitHub's
// pitfall), submitPullRequestReview, requestReviews, mergePullRequest, updatePullRequest,
// enablePullRequestAutoMerge and disablePullRequestAutoMerge (refused where the repository does
// not allow auto-merge, on another head than expectedHeadOid, and on a pull request that could be
// merged right now: "clean status"), enqueuePullRequest (only where the base branch has a merge
// queue). GitHub merges what auto-merge and the merge queue hold by itself once the base branch's
// requirements are met, when time passes (Merges records them, Merge.Through says how).
//
// The base branch's requirements come from a classic protection rule (ProtectBranch; shown as
// Ref.branchProtectionRule to administrators only, WithoutAdmin, and as Ref.refUpdateRule to
// everyone) and rulesets (AddRuleset; Ref.rules): required checks (isRequired follows them),
// approvals, code owners, resolved conversations, a merge queue. mergeStateStatus is BLOCKED while
// one is not met, and a direct merge is refused.
//
// What GitHub computes late is late here too: with WithLazyMergeability, mergeable reads UNKNOWN
// after a push or a move of the base branch (BaseBranchMoved: the base tip, baseRef.target, moves;
// baseRefOid does not) until computed, on its own or after a REST GET of the pull request started
// the computation; with WithWorkflowOnPush, a pushed head has no checks (a null rollup) until its
// workflow registers. A re-run (and CheckSuperseded) leaves the run it replaces in the rollup,
// where it still votes; only the latest run of a check counts for the merge state.
//
// Logins are faithful: in GraphQL a bot's login has no "[bot]" suffix and its __typename is Bot;
// in REST the login ends in "[bot]" and type is "Bot". The fake never normalises for you.
//
// # REST
//
//	GET    /user, /rate_limit
//	GET    /repos/{o}/{r}/pulls/{n}                    PATCH: title/body; state=closed is refused (403)
//	PATCH  /repos/{o}/{r}/issues/{n}                   state=closed on a PR is refused (403)
//	GET    /repos/{o}/{r}/pulls/{n}/comments, /reviews
//	POST   /repos/{o}/{r}/pulls/{n}/comments/{id}/replies        201, appended to that thread
//	GET|POST|DELETE /repos/{o}/{r}/pulls/{n}/requested_reviewers
//	GET|PUT /repos/{o}/{r}/pulls/{n}/merge             405 not mergeable or refused by policy, 409 stale sha
//	DELETE /repos/{o}/{r}/git/refs/{ref}               refused (403)
//	GET    /repos/{o}/{r}/commits/{sha}/pulls          the pull requests with that commit, open ones first
//	GET|POST /repos/{o}/{r}/issues/{n}/labels           POST: ["a"] or {"labels": [...]}; creates new labels
//	DELETE /repos/{o}/{r}/issues/{n}/labels/{name}     404 "Label does not exist" when not applied
//	POST   /repos/{o}/{r}/issues/{n}/assignees         201, the issue (a pull request's has pull_request)
//	GET    /repos/{o}/{r}/actions/jobs/{id}[/logs]     logs: 302 to a URL valid 1 minute of fake time
//	POST   /repos/{o}/{r}/actions/jobs/{id}/rerun
//	GET    /repos/{o}/{r}/actions/runs/{id}[/jobs]
//	POST   /repos/{o}/{r}/actions/runs/{id}/rerun-failed-jobs, /rerun    201
//
// Anything else is 404 {"message":"Not Found"}. Responses carry x-ratelimit-* headers. The REST
// API version (X-GitHub-Api-Version) is 2022-11-28 or 2026-03-10, which drops what GitHub removed
// in it (merge_commit_sha from pull requests, rate from /rate_limit); any other is a 400.
//
// Log URLs are pre-signed: they need no token and, on a started fake, live on a second loopback
// server (LogURL), another host as on GitHub, so a token sent along a redirect shows in the
// recording (Request.Auth). They honour Range requests, like blob storage.
//
// Re-runs replace the affected check runs with new ones (new database ids, QUEUED); a RerunHook
// (WithRerunHook) decides how they finish and after how much fake time.
//
// Closing a pull request or deleting a branch, by any route, is refused and recorded: Forbidden()
// must stay empty in prmonitor's tests. Every merge attempt is recorded (Merges()) and passed to
// the merge hook (WithMergeHook), so a test can fail on a merge it did not expect.
//
// # Scenarios
//
// A Scenario is a story on the fake clock: steps, each a short list of Events with a one-line
// Describe(). Events are plain values (OpenPR, Push, MergeBase, Rebase, Amend, ReviewSubmitted
// and its shorthands Approve/RequestChanges/CommentReview, ReviewDismissed, ThreadReply,
// ThreadResolved, ChecksQueued, CheckStarted, CheckCompleted, StatusReported, MergeConflict,
// MergeableUnknown, Merged, Closed, AddLabels, RemoveLabel, Assign, Comment, OpenIssue, ...); a
// step's events apply atomically. The conversation events (labels, assignees, comments) apply to
// the issue or pull request with the reference's number, as numbers are shared on GitHub.
//
//	ref := githubfake.Ref{Owner: "octo", Repo: "widgets", Number: 7}
//	sc := githubfake.Scenario{PR: ref, Steps: []githubfake.Step{
//		{Events: []githubfake.Event{githubfake.OpenPR{Title: "Add widgets"},
//			githubfake.ChecksQueued{Jobs: []string{"build", "test"}}}},
//		{After: 5 * time.Minute, Events: []githubfake.Event{
//			githubfake.CheckCompleted{Name: "test", Conclusion: githubfake.ConclusionFailure}}},
//		{After: time.Hour, Events: []githubfake.Event{githubfake.RequestChanges(githubfake.User("alice"),
//			"Please fix", githubfake.NewThread{Path: "a.go", Line: 3, Body: "nil?"})}},
//	}}
//	p := f.Play(sc)
//	for !p.Done() { step, err := p.Next(); fmt.Println(step.Describe()) }
//
// A pull request's updatedAt moves as GitHub's does on an edit of it (a push, a review, a review
// comment, a review request, a draft toggle, a merge, a close, a title or body change), and not on
// what GitHub computes about it (mergeability after the base branch moved, the base branch's
// rules) nor on a thread's resolve, which GitHub is not known to count as an update.
//
// Tests can also apply events directly (f.Apply(ref, events...), f.PR(ref).Apply(...)), read ids
// back (f.PR(ref).Thread(0), .Check("test")), or change the data under the lock (f.Do, f.View).
// Commits(n,…), Threads(n,…) and JobNames(n,…) make long pull requests easy.
//
// # Faults and recording
//
// InjectFault answers matching requests (GraphQL query or mutation by name, REST method and path
// pattern) N times or forever with an HTTP status, a secondary rate limit (403/429, Retry-After,
// x-ratelimit-remaining: 0), a typed GraphQL error, a partial answer (data for some aliases, an
// error naming each of the others, as when part of a heavy query timed out), a delay that honours
// the request context, or a dropped connection; with After, the request is carried out first and the fault replaces the
// answer (the operation happened, the client never learnt it). Every request is recorded
// (Requests, GraphQLQueries, GraphQLMutations, MutationCalls, RESTCalls, Documents,
// ResetRecording).
//
// The fake is safe for concurrent use and has no global mutable state.
//
// # Independence
//
// The fake imports no prmonitor package but ghschema: it speaks GitHub's vocabulary with types of
// its own (Ref, PRState, MergeableState, ReviewState, the check and status constants), so it
// cannot drift towards what prmonitor believes and any package's tests may use it. A test holding
// prmonitor's reference converts it at the edge: f.PR(githubfake.Ref(ref)).
//
// GitHub's schema (package ghschema) is parsed the first time a GraphQL document is validated,
// never when the program starts: the production binary links the fake only for its demo command.
package githubfake
