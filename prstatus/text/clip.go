package text

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis ends a text that was cut.
const Ellipsis = "…"

// ClipBytes shortens s to at most n bytes, ellipsis included, cutting on a rune boundary: a text
// that must fit a size on the wire or on disk. s is returned as it is when it fits.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < len(Ellipsis) {
		return ""
	}
	cut := n - len(Ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + Ellipsis
}

// ClipRunes shortens s to at most n characters (runes), ellipsis included: a text that must fit
// what a person reads. s is returned as it is when it fits.
func ClipRunes(s string, n int) string {
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + Ellipsis
}
