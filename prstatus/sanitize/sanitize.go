// Package sanitize cleans untrusted text from GitHub (titles, bodies, review and comment text,
// commit headlines, check and workflow names, paths) before it reaches a model, a terminal or a
// log.
//
// Text removes what a human reading the text on GitHub cannot see but a model or a terminal
// still acts on: Unicode tag characters (used to smuggle hidden instructions), bidirectional
// controls (Trojan Source), zero-width and other invisible format characters, C1 control codes,
// and variation selectors that do not modify a visible character (runs of them encode hidden
// payloads). Invalid UTF-8 becomes U+FFFD. Newlines, tabs and every visible character are kept.
// Text is idempotent, and returns its input unchanged, without allocating, when there is nothing
// to remove (always the case for ASCII).
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s without invisible and bidirectional control characters, with invalid UTF-8
// replaced by U+FFFD.
func Text(s string) string {
	i := firstChange(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	prev, _ := utf8.DecodeLastRuneInString(s[:i])
	if i == 0 {
		prev = -1
	}
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		// An invalid byte decodes as (RuneError, 1); a literal U+FFFD decodes with size 3.
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			prev = utf8.RuneError
			continue
		}
		if dropped(r, prev) {
			continue
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

// firstChange returns the byte offset of the first rune Text would remove or replace, or len(s).
func firstChange(s string) int {
	prev := rune(-1)
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			prev = rune(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || dropped(r, prev) {
			return i
		}
		prev = r
		i += size
	}
	return len(s)
}

// dropped reports whether r is removed when it follows prev, the last rune kept (-1 at the start).
func dropped(r, prev rune) bool {
	if IsInvisible(r) {
		return true
	}
	return isVariationSelector(r) && !isBase(prev)
}

// IsInvisible reports whether r is always removed by Text: a tag character, a bidirectional
// control, a zero-width or other invisible format character, or a C1 control code. Variation
// selectors are removed only when orphaned, so they are not reported here.
func IsInvisible(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r <= 0x9f:
		return r != 0x85 // C1 controls; NEL is a line break and is kept
	case r == 0x00ad, // soft hyphen
		r == 0x061c, // Arabic letter mark
		r == 0x180e, // Mongolian vowel separator
		r == 0xfeff: // zero-width no-break space (BOM)
		return true
	case r >= 0x200b && r <= 0x200f: // zero-width space, non-joiner, joiner; LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2060 && r <= 0x206f: // word joiner, invisible operators, bidi isolates, deprecated format
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation controls
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tags
		return true
	}
	return false
}

// isVariationSelector reports whether r is one of the 256 variation selectors.
func isVariationSelector(r rune) bool {
	return (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xe0100 && r <= 0xe01ef)
}

// isBase reports whether a variation selector may follow r: a visible character that is not
// itself a variation selector. A selector after another one, after a space or control, or at the
// start of the text modifies nothing and is treated as a hidden payload.
func isBase(r rune) bool {
	return r >= 0 && !isVariationSelector(r) && unicode.IsGraphic(r) && !unicode.IsSpace(r)
}
