package statemachine

import (
	"strings"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// Untrusted is text that came from GitHub (titles, comments, reviews, PR bodies, logs, GitHub's
// own messages). It has already been sanitised at ingestion; in every payload and every sentence
// an agent or a person reads it is fenced and labelled as data (sanitize.Fence), so an agent can
// tell the reviewer's words from the server's instructions: HTML comments GitHub hides are left
// out, the text is normalised, anything shaped like a fence marker is defanged, and the fence's
// id is a keyed hash the text cannot know (docs/security.md, "Fences").
type Untrusted string

// Fenced returns the text wrapped in its labelled fence ("" when nothing of it is shown).
func (u Untrusted) Fenced() string { return sanitize.Fence(string(u)) }

// Outside is what a reader who honours the fences takes as not GitHub's: text with every fence
// removed. ok is false when a fence has no end line with its id.
func Outside(text string) (outside string, ok bool) { return sanitize.Outside(text) }

// quote fences lines of GitHub text as one block: how a question or a message shows what
// reviewers, CI or GitHub said, readable by a person and unmistakable for an agent.
func quote(lines ...string) string { return Untrusted(strings.Join(lines, "\n")).Fenced() }

// withCause ends a sentence about a failure with its cause, fenced: GitHub's messages can quote
// what users wrote (a check's name, a branch).
func withCause(sentence, cause string) string {
	if cause == "" {
		return sentence + ": no reason given."
	}
	return sentence + ". The error:\n" + quote(cause)
}

// MarshalText renders the text fenced: in JSON, a string holding the fence. (A TextMarshaler
// rather than a json.Marshaler: encoding/json then escapes the string itself instead of
// re-validating what a MarshalJSON returned, which matters for a megabyte of log.)
func (u Untrusted) MarshalText() ([]byte, error) { return []byte(u.Fenced()), nil }

// UnmarshalText accepts the fenced form (and plain text), so a persisted position round-trips
// (to the text as it was shown), whichever process fenced it.
func (u *Untrusted) UnmarshalText(b []byte) error {
	s := string(b)
	if body, ok := sanitize.Unfence(s); ok {
		s = body
	}
	*u = Untrusted(s)
	return nil
}
