package prstatus

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// ReplyKind says how prmonitor answered a thread.
type ReplyKind string

// Reply kinds.
const (
	// ReplyAddressed: the code was changed; the thread is resolved.
	ReplyAddressed ReplyKind = "addressed"
	// ReplyReplied: an answer without a resolution (pushback or a question); a human reviewer's
	// thread is left open for them.
	ReplyReplied ReplyKind = "replied"
)

// Marker is the hidden tag at the end of every reply prmonitor posts. It lets a retry see that a
// reply already landed (so nothing is posted twice) and lets later rounds find earlier resolutions
// in the same one-query snapshot (docs/architecture.md#memory-across-review-rounds). It is an HTML comment, invisible on GitHub.
type Marker struct {
	// Round identifies the review round the reply belongs to.
	Round string `json:"round"`
	// Thread is the review thread's node id.
	Thread string `json:"thread"`
	// Kind is how the thread was answered.
	Kind ReplyKind `json:"kind"`
	// Category is the concern category assigned to the thread, when known.
	Category string `json:"category,omitempty"`
}

var (
	markerField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.:=+/-]*$`) })
)

// String renders the marker as the hidden HTML comment appended to a reply.
func (m Marker) String() string {
	parts := []string{"round=" + clean(m.Round), "thread=" + clean(m.Thread), "kind=" + clean(string(m.Kind))}
	if m.Category != "" {
		parts = append(parts, "category="+clean(m.Category))
	}
	return fmt.Sprintf("<!-- prmonitor:v1 %s -->", strings.Join(parts, " "))
}

// clean keeps a marker value inside its comment: anything outside a small safe alphabet is dropped.
func clean(s string) string {
	if markerField().MatchString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if markerField().MatchString(string(r)) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ParseMarker finds prmonitor's marker in a comment body. Only the last marker counts. It scans
// strings rather than running a regular expression: clusters read the marker of every answered
// thread on every poll.
func ParseMarker(body string) (Marker, bool) {
	group, found := lastMarkerText(body)
	if !found {
		return Marker{}, false
	}
	var m Marker
	for f := range strings.FieldsSeq(group) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		switch k {
		case "round":
			m.Round = v
		case "thread":
			m.Thread = v
		case "kind":
			m.Kind = ReplyKind(v)
		case "category":
			m.Category = v
		}
	}
	if m.Thread == "" {
		return Marker{}, false
	}
	return m, true
}
