package text

import (
	"strings"
	"unicode"
)

// OneLine puts s on one line: every run of white space (line breaks included) becomes one space,
// and none is left at either end.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Error is err's message on one line, "" for a nil error.
func Error(err error) string {
	if err == nil {
		return ""
	}
	return OneLine(err.Error())
}

// Excerpt is the start of s on one line, at most n characters (runes) with "…" when it was cut,
// as ClipRunes(OneLine(s), n) but reading no further into s than it needs: a long comment costs
// what its excerpt does.
func Excerpt(s string, n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(min(len(s), 4*(n+1)))
	runes, space := 0, false
	for _, r := range s {
		if runes > n {
			break
		}
		if unicode.IsSpace(r) {
			space = runes > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			runes++
			space = false
		}
		b.WriteRune(r)
		runes++
	}
	return ClipRunes(b.String(), n)
}
