package main

import (
	"strings"
	"unicode/utf8"

	"github.com/prmonitor/prmonitor/prstatus/sanitize"
)

// oneLine makes text fit one terminal line: invisible and control characters (escape sequences
// included) are dropped and runs of whitespace become one space. Text from GitHub is untrusted and
// goes through it before it reaches a terminal.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, sanitize.Text(s))
	return strings.Join(strings.Fields(s), " ")
}

// clip shortens s to at most n runes, ending with "…" when it was cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
