// Package sanitize cleans untrusted text from GitHub (titles, bodies, review and comment text,
// commit headlines, check and workflow names, paths, branch names, job logs) before it reaches a
// model, a terminal, a log or a state file. The GitHub client applies it once, at ingestion.
//
// Text removes what a human reading the text on GitHub cannot see but a model or a terminal
// still acts on: C0 control characters other than newline and tab (NUL, BEL, backspace, ESC...)
// together with the ANSI escape sequences ESC starts (colours, cursor moves, OSC hyperlinks and
// window titles), DEL, C1 control codes (and the CSI/OSC sequences their single-byte forms start),
// Unicode tag characters (used to smuggle hidden instructions), bidirectional controls (Trojan
// Source), zero-width and other invisible format characters, and variation selectors that do not
// modify a visible character (runs of them encode hidden payloads). A carriage return becomes a
// newline (CRLF one newline), so nothing can overwrite a line on a terminal, and so do the
// Unicode line breaks (NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR), which break a line for a model
// while many displays show nothing. Invalid UTF-8 becomes U+FFFD. Newlines, tabs and every visible character are kept. Text is idempotent, and returns its
// input unchanged, without allocating, when there is nothing to remove.
//
// Redactor removes a secret (the server's own token) and its obvious encodings from text, also
// where only the folded text, or the text as a reader is shown it, holds one.
//
// HTTPSLink keeps a link an app wrote (a check's details) only when it is an https link.
//
// Fence wraps GitHub text for a reader (an agent, a person, a model) in a labelled fence that the
// text cannot close, after removing what GitHub does not show and defanging anything shaped like
// a fence marker (reader.go, defang.go): see fence.go and docs/security.md.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Control characters Text treats specially.
const (
	esc = 0x1b
	bel = 0x07
	del = 0x7f
	csi = 0x9b // C1 control sequence introducer
	osc = 0x9d // C1 operating system command
	st  = 0x9c // C1 string terminator
)

// maxEscape bounds an escape sequence: an ESC that never ends must not swallow the text after it.
// An unterminated sequence loses only its introducer.
const maxEscape = 256

// Text returns s without control, invisible and bidirectional control characters and escape
// sequences, with carriage returns and Unicode line breaks turned into newlines and invalid UTF-8
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
		// An invalid byte decodes as (RuneError, 1); a literal U+FFFD decodes with size 3.
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			prev = utf8.RuneError
			i++
			continue
		}
		switch {
		case r == '\r':
			b.WriteByte('\n')
			prev = '\n'
			i += size
			if i < len(s) && s[i] == '\n' { // CRLF is one newline
				i++
			}
			continue
		case r == esc || r == csi || r == osc:
			i += escapeLen(s[i:])
			continue
		case isLineBreak(r):
			b.WriteByte('\n')
			prev = '\n'
			i += size
			continue
		case dropped(r, prev):
			i += size
			continue
		}
		b.WriteRune(r)
		prev = r
		i += size
	}
	return b.String()
}

// firstChange returns the byte offset of the first rune Text would remove or replace, or len(s).
func firstChange(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiChange[c] {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		prev := rune(-1) // only a variation selector looks at what precedes it
		if i > 0 && isVariationSelector(r) {
			prev, _ = utf8.DecodeLastRuneInString(s[:i])
		}
		if dropped(r, prev) || isLineBreak(r) {
			return i
		}
		i += size
	}
	return len(s)
}

// isLineBreak reports whether r is a Unicode line break other than newline and carriage return:
// NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR. Text turns each into a newline.
func isLineBreak(r rune) bool {
	return r == 0x85 || r == 0x2028 || r == 0x2029
}

// asciiChange marks the ASCII bytes Text changes: controls but newline and tab (CR included),
// ESC, DEL.
var asciiChange = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isControl(rune(c)) || c == '\r'
	}
	return t
}()

// dropped reports whether r is removed when it follows prev, the last rune kept (-1 at the start).
func dropped(r, prev rune) bool {
	if isControl(r) || IsInvisible(r) {
		return true
	}
	return isVariationSelector(r) && !isBase(prev)
}

// isControl reports whether r is a C0 control other than newline and tab, or DEL. (Carriage
// return is turned into a newline before this is asked.)
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || r == del
}

// escapeLen returns how many bytes of s, which starts with ESC or a C1 introducer, form one escape
// sequence to drop: the whole sequence when it ends within maxEscape bytes, else the introducer.
//
//   - CSI (ESC [ or U+009B): parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final
//     byte 0x40–0x7E (colours, cursor moves, erasing);
//   - OSC (ESC ] or U+009D), and the other string sequences ESC P, ESC X, ESC ^, ESC _: anything up
//     to BEL, ESC \ or U+009C (hyperlinks, window titles);
//   - any other ESC: intermediate bytes 0x20–0x2F and one final byte 0x30–0x7E.
func escapeLen(s string) int {
	intro := 1
	kind := byte(0)
	switch {
	case s[0] == esc && len(s) > 1:
		kind = s[1]
		if kind == '[' || kind == ']' || kind == 'P' || kind == 'X' || kind == '^' || kind == '_' {
			intro = 2
		}
	case strings.HasPrefix(s, string(rune(csi))):
		kind, intro = '[', len(string(rune(csi)))
	case strings.HasPrefix(s, string(rune(osc))):
		kind, intro = ']', len(string(rune(osc)))
	}
	end := min(len(s), intro+maxEscape)
	switch kind {
	case '[':
		i := intro
		for i < end && s[i] >= 0x30 && s[i] <= 0x3f {
			i++
		}
		for i < end && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < end && s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
	case ']', 'P', 'X', '^', '_':
		for i := intro; i < end; i++ {
			switch {
			case s[i] == bel:
				return i + 1
			case s[i] == esc && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case strings.HasPrefix(s[i:], string(rune(st))):
				return i + len(string(rune(st)))
			}
		}
	default:
		if s[0] != esc {
			break
		}
		i := 1
		for i < end && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < end && s[i] >= 0x30 && s[i] <= 0x7e {
			return i + 1
		}
	}
	if s[0] == esc {
		return 1
	}
	return intro
}

// IsInvisible reports whether r is always removed by Text: a tag character, a bidirectional
// control, a zero-width or other invisible format character (every default-ignorable code point,
// Hangul fillers included: they render as nothing, or as a blank, and can split a word a reader
// would match), or a C1 control code. Variation
// selectors are removed only when orphaned, and C0 controls are handled on their own, so neither
// is reported here.
func IsInvisible(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r <= 0x9f:
		return r != 0x85 // C1 controls; NEL is a line break (Text turns it into a newline)
	case r == 0x00ad, // soft hyphen
		r == 0x034f,                                        // combining grapheme joiner
		r == 0x061c,                                        // Arabic letter mark
		r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, // Hangul fillers: blank, yet letters
		r == 0x17b4, r == 0x17b5, // Khmer inherent vowels
		r == 0xfeff: // zero-width no-break space (BOM)
		return true
	case r >= 0x180b && r <= 0x180f: // Mongolian free variation selectors, vowel separator
		return true
	case r >= 0x200b && r <= 0x200f: // zero-width space, non-joiner, joiner; LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2060 && r <= 0x206f: // word joiner, invisible operators, bidi isolates, deprecated format
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotation controls
		return true
	case r >= 0x1bca0 && r <= 0x1bca3: // shorthand format controls
		return true
	case r >= 0xe0000 && r <= 0xe0fff: // tags, and the rest of the plane's default-ignorable block
		return !isVariationSelector(r)
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
