package rounds

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prmonitor/prmonitor/prstatus"
	"github.com/prmonitor/prmonitor/prstatus/sanitize"
	"github.com/prmonitor/prmonitor/prstatus/text"
)

// PriorResolution is a thread prmonitor answered in an earlier round: resolved, or answered and
// waiting for the reviewer. It is read back from prmonitor's own reply marker in the snapshot
// already fetched, so remembering earlier rounds costs no API call (docs/architecture.md#memory-across-review-rounds).
type PriorResolution struct {
	ThreadID string `json:"thread_id"`
	// Round is the round id the reply's marker names.
	Round string `json:"round"`
	// Category is the marker's category, else Categorize of the thread's first comment.
	Category Category `json:"category"`
	Path     string   `json:"path,omitempty"`
	Line     int      `json:"line,omitempty"`
	// Reviewer wrote the thread's first comment.
	Reviewer string `json:"reviewer"`
	// RepliedAt is when the marked reply was posted.
	RepliedAt time.Time          `json:"replied_at"`
	Kind      prstatus.ReplyKind `json:"kind"`
	// Resolved is false for a thread answered but still open (waiting for the reviewer).
	Resolved bool `json:"resolved"`
	// Excerpt is the start of the reviewer's first comment: one line, at most excerptRunes runes.
	Excerpt string `json:"excerpt"`
}

// Bounds on what a prior resolution and a cluster brief carry, so a brief has a hard size ceiling
// whatever the PR holds.
const (
	excerptRunes = 200
	idRunes      = 64 // thread ids, round ids, logins, reply kinds
	pathRunes    = 256
)

// priorRef is a prior resolution before its category and excerpt are worked out: finding and
// ordering them is cheap, so the lookback can drop old rounds before anything costs.
type priorRef struct {
	t      *prstatus.ThreadFact
	marker prstatus.Marker
	at     time.Time
}

// PriorResolutions lists every thread of the PR that carries prmonitor's marker in a reply from
// the PR's side (OurMarker: the PR author or the token's user; a marker anyone else wrote is
// ignored), among resolved threads and threads waiting for the reviewer, oldest reply first. A
// thread answered more than once counts by its newest marked reply. Nothing here is bounded by
// rounds: Cluster applies the lookback.
func PriorResolutions(f *prstatus.Facts) []PriorResolution {
	if f == nil {
		return nil
	}
	refs := scanPriors(f, nil)
	out := make([]PriorResolution, 0, len(refs))
	for _, r := range refs {
		out = append(out, r.resolution(categoryOf(r.t, r.marker)))
	}
	return out
}

// scanPriors finds the marked replies, skipping the threads in skip, ordered by reply time.
func scanPriors(f *prstatus.Facts, skip map[string]bool) []priorRef {
	refs := make([]priorRef, 0, len(f.Threads.Resolved)+len(f.Threads.Waiting))
	for _, list := range [][]prstatus.ThreadFact{f.Threads.Resolved, f.Threads.Waiting} {
		for i := range list {
			t := &list[i]
			if skip[t.ID] {
				continue
			}
			if m, at, ok := newestMarker(t, f.Author, f.Viewer); ok {
				refs = append(refs, priorRef{t: t, marker: m, at: at})
			}
		}
	}
	slices.SortFunc(refs, comparePriorRefs)
	return refs
}

// newestMarker returns the newest marker of ours in the thread that names this very thread: a
// marker naming another thread is a quote, not an answer.
func newestMarker(t *prstatus.ThreadFact, author, viewer string) (prstatus.Marker, time.Time, bool) {
	comments := t.Comments
	if len(comments) == 0 {
		comments = []prstatus.Comment{t.First(), t.Last()}
	}
	var best prstatus.Marker
	var at time.Time
	found := false
	for _, c := range comments {
		m, ok := prstatus.OurMarker(c, author, viewer)
		if !ok || m.Thread != t.ID {
			continue
		}
		if !found || c.CreatedAt.After(at) || (c.CreatedAt.Equal(at) && m.Round > best.Round) {
			best, at, found = m, c.CreatedAt, true
		}
	}
	return best, at, found
}

func comparePriorRefs(a, b priorRef) int {
	return cmp.Or(a.at.Compare(b.at), strings.Compare(a.t.ID, b.t.ID), strings.Compare(a.marker.Round, b.marker.Round))
}

// recentRounds keeps the refs of the lookback rounds whose newest reply is the most recent, and
// returns those rounds oldest first. Round ids are opaque, so rounds are ordered by time.
func recentRounds(refs []priorRef, lookback int) ([]priorRef, []string, int) {
	newest := map[string]time.Time{}
	for _, r := range refs {
		if at, ok := newest[r.marker.Round]; !ok || r.at.After(at) {
			newest[r.marker.Round] = r.at
		}
	}
	rounds := make([]string, 0, len(newest))
	for id := range newest {
		rounds = append(rounds, id)
	}
	// Newest first, to cut; then back to oldest first.
	slices.SortFunc(rounds, func(a, b string) int {
		return cmp.Or(newest[b].Compare(newest[a]), strings.Compare(a, b))
	})
	total := len(rounds)
	rounds = rounds[:min(lookback, len(rounds))]
	slices.Reverse(rounds)
	kept := make([]priorRef, 0, len(refs))
	for _, r := range refs {
		if slices.Contains(rounds, r.marker.Round) {
			kept = append(kept, r)
		}
	}
	return kept, rounds, total
}

// resolution fills in a prior resolution of the category given, with its excerpt.
func (r priorRef) resolution(c Category) PriorResolution {
	return PriorResolution{
		ThreadID:  text.ClipRunes(r.t.ID, idRunes),
		Round:     text.ClipRunes(r.marker.Round, idRunes),
		Category:  c,
		Path:      text.ClipRunes(r.t.Path, pathRunes),
		Line:      r.t.Line,
		Reviewer:  text.ClipRunes(r.t.Reviewer, idRunes),
		RepliedAt: r.at,
		Kind:      prstatus.ReplyKind(text.ClipRunes(string(r.marker.Kind), idRunes)),
		Resolved:  r.t.Status == prstatus.ThreadResolved,
		Excerpt:   excerpt(r.t.First().Body, excerptRunes),
	}
}

// categoryOf is the category a marker recorded for the thread (the one the server settled on,
// perhaps by sampling), else the keyword floor on the thread's first comment.
func categoryOf(t *prstatus.ThreadFact, m prstatus.Marker) Category {
	if c, ok := ParseCategory(m.Category); ok {
		return c
	}
	return Categorize(t.First().Body, t.Path)
}

// excerpt renders the start of a comment on one line: hidden HTML comments dropped, code blocks
// shown as [code], invisible and bidi control characters removed, at most n runes.
func excerpt(body string, n int) string {
	if limit := 4*n + 1024; len(body) > limit {
		// Enough for n runes after the clean-up below in most comments; cut on a rune boundary.
		for limit > 0 && !utf8.RuneStart(body[limit]) {
			limit--
		}
		body = body[:limit]
	}
	body = sanitize.StripLinkDefinitions(stripSpans(body, "<!--", "-->", " "))
	body = stripSpans(body, "```", "```", " [code] ")
	return text.Excerpt(sanitize.Text(body), n)
}
