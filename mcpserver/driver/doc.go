// Package driver runs one monitor's machine inside a tool call of the stdio server until there is
// something for the agent, the user must be asked, or the call has waited long enough, and says
// where it stopped as an Outcome the server renders (docs/architecture.md#one-next_step-call).
//
// A Driver feeds the call's input to the monitor (package monitor) and loops on the action it
// gets back: it waits for the watcher's news (poll.go), does the server's GitHub work through
// package effects and waits out GitHub's rate limits (drive_github.go), holds a question through
// quiet hours (drive_quiet.go), and asks the user (elicitation) or the host's model (sampling) in
// both protocol eras (drive_client.go, roundtrip.go, sampling.go; a 2026-07-28 client answers by
// calling again with a sealed request state: seal.go), marking whose an answer is (consent.go).
// What it needs of the server it runs in is its Host, and of the call its Call; it never reaches
// the server (package mcpserver) nor its transport.
package driver
