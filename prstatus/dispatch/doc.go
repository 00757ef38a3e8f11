// Package dispatch holds the repository-wide dispatcher's rules: a stateless run over every open
// pull request of a repository decides which single worker is needed next (self-review, a fix of
// the self-review's findings, a CI fix, review feedback, a bot's findings, a rebase, or a new
// issue to implement) and which pull requests are ready for a human (docs/dispatch.md).
//
// Everything here is pure: Decide reads a Snapshot (filled by the ghclient subpackage in a few
// GraphQL requests), the Config and the current time, and returns a Plan: the SPAWN and HANDOFF
// lines, one decision per pull request with the rule that made it, and the label and assignee
// writes the run makes. The writes are carried out elsewhere (package runner), and never with
// --dry-run. Rules, in order, first match wins per pull request:
//
//	skip  by an author the dispatcher does not work for (not the user, not trusted_authors, no
//	      write access), or from a fork without allow_forks: nothing at all (trust.go);
//	      or its task could not be rendered
//	0     wip label applied longer than wip_stale_after ago: remove it and evaluate;
//	      applied more recently: skip the pull request (work is active)
//	skip  drafts and pull requests by skip_authors
//	2     any reviewer's latest opinionated review requests changes: SPAWN findings
//	3     conflicting with the base: SPAWN rebase (mergeability still computing: wait)
//	4     a check on the head failed: SPAWN ci-fix, unless a fix plan for the head exists
//	5     a configured review bot has no review with its sentinel: wait
//	6     checks pending, or none reported yet: wait
//	7     no self-review of the head: SPAWN self-review; one with findings: SPAWN sr-fix,
//	      unless a fix plan for the head exists
//	8     a bot's approval of the head lists findings no fix plan names: SPAWN address-feedback,
//	      unless a fix plan for the head exists
//	9     an unresolved review thread without a reply: SPAWN address-feedback, unless a fix plan
//	      for the head exists
//	10    every review bot has evaluated the head: add the ready label, assign the handoff
//	      assignee, HANDOFF (already assigned to them: nothing)
//	11    no open pull request left after skips and no active WIP: assign the oldest open
//	      unassigned issue (label bug first) written by someone it works for to the user, SPAWN impl
//
// Rule 2 comes before every other rule, with no exception: a change request is never reasoned
// past. Nothing in this package, nor in the dispatcher's other packages, can merge or close a
// pull request, delete a branch, or call a model. Whom the dispatcher works for and whose
// signatures it believes is trust.go (docs/security.md).
package dispatch
