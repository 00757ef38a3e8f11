// Package webhook receives GitHub's webhook deliveries for the team deployment (POST /webhook on
// the worker's --webhook-listen address) and turns each into a signal to the monitors of the pull
// requests it names (docs/decisions/0002-temporal-past-one-machine.md).
//
// A delivery is trusted only after its X-Hub-Signature-256 (HMAC-SHA256 of the body with the
// shared secret, compared in constant time by go-github's ValidateSignature) checks out: anything
// else is answered 401 and signals nothing. Bodies are capped; a redelivery (the same
// X-GitHub-Delivery id) within the dedup window is acknowledged and dropped. A signal says only
// "something changed on this pull request": the monitor reads the pull request itself, so nothing
// else from the payload is used, and a lost delivery is caught by the monitor's reconcile timer.
package webhook
