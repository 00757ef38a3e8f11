// Package webhook receives GitHub's webhook deliveries for the team deployment (POST /webhook on
// the worker's --webhook-listen address) and turns each into a signal to the monitors of the pull
// requests it names (docs/decisions/0002-temporal-past-one-machine.md, docs/security.md).
//
// A delivery is trusted only after its X-Hub-Signature-256 (HMAC-SHA256 of the body with the
// shared secret, compared in constant time by go-github's ValidateSignature) checks out: anything
// else is answered 401 and signals nothing. Bodies are capped, and so are the bytes of all the
// bodies being read at once, before the signature can be checked. Only the fields the receiver
// uses are decoded (payload.go): GitHub's older and unknown shapes never fail a delivery. A
// delivery whose signed body was taken within the replay window (under any delivery id), or whose
// event happened before it, is dropped; each monitor also remembers the bodies it took
// (monitorwf). Only a writer's pull request opened, reopened, marked ready or pushed to starts a
// monitor, never over its owner's stop; everything else only signals a running one. A signal says
// only "something changed on this pull request": the monitor reads the pull request itself, so
// nothing else from the payload is used, and a lost delivery is caught by the monitor's reconcile
// timer. Each answer names its outcome (answer.go); only a failure another try could fix is a 5xx.
package webhook
