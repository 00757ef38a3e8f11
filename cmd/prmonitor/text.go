package main

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// displayWidth is how many terminal cells s takes: East Asian wide characters and emoji take two.
func displayWidth(s string) int { return ansi.StringWidth(s) }

// clipWidth shortens s to at most n terminal cells, ending with "…" when it was cut.
func clipWidth(s string, n int) string {
	if displayWidth(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	return strings.TrimRight(ansi.Truncate(s, n-1, ""), " ") + "…"
}

// padWidth pads s with spaces to n terminal cells.
func padWidth(s string, n int) string {
	if k := displayWidth(s); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

// wrapWidth breaks s into lines of at most n terminal cells, at spaces where it can.
func wrapWidth(s string, n int) []string {
	if n <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, strings.Split(ansi.Wrap(para, n, ""), "\n")...)
	}
	return out
}

// alignColumns lines rows of cells up by column, in terminal cells (wide characters take two),
// with gap between the columns; trailing spaces are trimmed.
func alignColumns(rows [][]string, gap string) []string {
	var widths []int
	for _, cells := range rows {
		for j, c := range cells {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], displayWidth(c))
		}
	}
	out := make([]string, len(rows))
	for i, cells := range rows {
		var b strings.Builder
		for j, c := range cells {
			if j > 0 {
				b.WriteString(gap)
			}
			b.WriteString(padWidth(c, widths[j]))
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}
