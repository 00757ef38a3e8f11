// Package httpguard holds the team deployment's HTTP hygiene, shared by the front end (serve
// --http) and the worker's webhook receiver: each control is a plain http.Handler wrapper (or the
// function it is built on), so they compose with each other and with whatever a deployment puts
// around them (docs/security.md):
//
//   - Origins checks the Host and Origin headers against an allow-list (loopback by default): a
//     page on another site, or one reached through DNS rebinding, is answered 403.
//   - Bodies caps a request's body and the bytes all requests may hold in memory at once, before
//     anyone is authenticated: a flood of large bodies waits, then is answered 503, instead of
//     growing the heap.
//   - Listen decides whether an address may be served without TLS.
package httpguard
