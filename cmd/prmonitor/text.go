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
	return strings.Join(strings.Fields(sanitize.Text(s)), " ")
}

// clip shortens s to at most n runes, ending with "…" when it was cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}
