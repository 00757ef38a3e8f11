// Package authledger is the one place every front-end replica shares about sign-ins: which
// authorization codes were exchanged, which refresh token of a sign-in is the current one, and
// what was revoked (a sign-in's tokens, a board session). Everything else a sign-in needs travels
// sealed under the deployment's auth key (package oauth), so any replica finishes what another
// began; only what must be said once, for all, lives here.
//
// The ledger is a long-running Temporal workflow (Workflow), run by the front ends themselves on
// their own task queue, reached by Updates (serialized by the workflow: a code is used once, a
// refresh token rotated once, across replicas) and a Query (is it revoked?). Its state is a map of
// keys to entries, each kept until it cannot matter any more (the code's, the sign-in's or the
// session's end), and carried across continue-as-new. Memory is the same state behind a mutex,
// for a single process (tests).
package authledger
