package sanitize

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPartsShowsGitHubsTextMarkedAndNoFenceLine(t *testing.T) {
	f := NewFencer([]byte("k"))
	bob, long := f.Fence("bob"), f.Fence("line one\nline two")
	tests := []struct {
		name string
		in   string
		want []Part
	}{
		{"no fence", "Merge it?", []Part{{Text: "Merge it?"}}},
		{"one fence inside a sentence", "approved by: " + bob + "\nMerge it?",
			[]Part{{Text: "approved by: "}, {Text: "bob", GitHub: true}, {Text: "\nMerge it?"}}},
		{"two fences, lines kept", long + " and " + bob,
			[]Part{{Text: "line one\nline two", GitHub: true}, {Text: " and "}, {Text: "bob", GitHub: true}}},
		{"an opening without its end: the rest is GitHub's", "x " + bob[:strings.Index(bob, "\n<<<end")] + " tail",
			[]Part{{Text: "x "}, {Text: "bob tail", GitHub: true}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parts(tt.in)
			assert.Equal(t, tt.want, got)
			for _, p := range got {
				assert.NotContains(t, p.Text, "<<<untrusted GitHub text")
			}
		})
	}
}
