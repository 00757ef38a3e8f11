// Package text holds the small helpers every layer uses to put words and lines together: a text on
// one line (OneLine, Error, Excerpt), a text cut to a size in bytes or in characters with an
// ellipsis (ClipBytes, ClipRunes), a count with its word (Count, Plural), a commit's short id
// (ShortSHA). It imports nothing but the standard library, does no I/O and keeps no state, so
// every package of the module may import it (docs/architecture.md#packages).
//
// It does not clean text: what comes from GitHub goes through package sanitize first
// (sanitize.Line is its one line, cleaned).
package text
