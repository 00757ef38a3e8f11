package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Text for a terminal is measured in cells: a CJK character or an emoji takes two, so columns
// after it still line up, and clipping never leaves a line wider than asked.
func TestTextIsMeasuredInTerminalCells(t *testing.T) {
	lines := alignColumns([][]string{{"修正してください", "a"}, {"fix it", "b"}, {"🚀 ship", "c"}}, "  ")
	for _, l := range lines {
		i := strings.LastIndex(l, " ") + 1
		assert.Equal(t, 18, displayWidth(l[:i]), "the second column starts at one cell: %q", l)
	}
	assert.Equal(t, 4, displayWidth("日本"))
	assert.Equal(t, "日本…", clipWidth("日本語のテキスト", 6))
	assert.LessOrEqual(t, displayWidth(clipWidth("日本語のテキスト", 5)), 5)
	assert.Equal(t, "日本  ", padWidth("日本", 6))
	assert.Equal(t, []string{"one two", "three"}, wrapWidth("one two three", 8))
}
