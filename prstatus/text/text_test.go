package text

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestOneLineFoldsEveryRunOfWhiteSpace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"  two\nlines\t and\r\n tabs  ", "two lines and tabs"},
		{"\u00a0no-break\u2028separator\u3000ideographic", "no-break separator ideographic"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, OneLine(tt.in), "%q", tt.in)
	}
	assert.Empty(t, Error(nil))
	assert.Equal(t, "open x: no such file", Error(errors.New("open x:\n no such file\n")))
}

func TestClipBytesFitsTheSizeOnARuneBoundary(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"fits", "abc", 3, "abc"},
		{"cut with the ellipsis inside the size", "abcdef", 5, "ab…"},
		{"never in the middle of a character", "aé€😀", 8, "aé…"},
		{"no room even for the ellipsis", "abcdef", 2, ""},
		{"a space before the cut goes", "ab cdef", 6, "ab…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClipBytes(tt.in, tt.n)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, len(got), tt.n)
			assert.True(t, utf8.ValidString(got))
		})
	}
}

func TestClipRunesFitsTheCharacters(t *testing.T) {
	tests := []struct {
		name string
		in   string
		n    int
		want string
	}{
		{"fits", "héllo", 5, "héllo"},
		{"cut with the ellipsis counted", "héllo wörld", 7, "héllo…"},
		{"wide characters count one each", "日本語のテキスト", 4, "日本語…"},
		{"nothing", "abc", 0, ""},
		{"one", "abc", 1, "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClipRunes(tt.in, tt.n)
			assert.Equal(t, tt.want, got)
			assert.LessOrEqual(t, utf8.RuneCountInString(got), max(tt.n, 0))
		})
	}
}

func TestExcerptIsTheClippedOneLineReadingOnlyWhatItNeeds(t *testing.T) {
	long := "first   line\nsecond line " + strings.Repeat("x", 1<<20)
	assert.Equal(t, "first line second…", Excerpt(long, 18))
	assert.Equal(t, ClipRunes(OneLine(long), 18), Excerpt(long, 18))
	assert.Equal(t, "short text", Excerpt("  short\n text ", 40))
	assert.Empty(t, Excerpt("anything", 0))
}

func TestCountsAndShortIDs(t *testing.T) {
	assert.Equal(t, "1 thread", Count(1, "thread", "threads"))
	assert.Equal(t, "0 threads", Count(0, "thread", "threads"))
	assert.Equal(t, "3 checks are", Count(3, "check is", "checks are"))
	assert.Equal(t, "is", Plural(1, "is", "are"))
	assert.Equal(t, "are", Plural(2, "is", "are"))
	assert.Equal(t, "abc1234", ShortSHA("abc1234def5678"))
	assert.Equal(t, "ab", ShortSHA("ab"))
}

// Whatever the text and the size, a clip fits it, is valid UTF-8 when the text was, and keeps the
// text's start.
func FuzzClip(f *testing.F) {
	for _, s := range []string{"", "abc", "aé€😀 x", "日本語のテキスト", strings.Repeat(" ", 10)} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n % 64
		if !utf8.ValidString(s) {
			return
		}
		b := ClipBytes(s, n)
		if len(b) > max(n, 0) && b != s {
			t.Fatalf("ClipBytes(%q, %d) = %q is longer", s, n, b)
		}
		if !utf8.ValidString(b) || !strings.HasPrefix(s, strings.TrimSuffix(b, Ellipsis)) {
			t.Fatalf("ClipBytes(%q, %d) = %q", s, n, b)
		}
		r := ClipRunes(s, n)
		if utf8.RuneCountInString(r) > max(n, 0) && r != s {
			t.Fatalf("ClipRunes(%q, %d) = %q is longer", s, n, r)
		}
		if !strings.HasPrefix(s, strings.TrimSuffix(r, Ellipsis)) {
			t.Fatalf("ClipRunes(%q, %d) = %q", s, n, r)
		}
		if e := Excerpt(s, n); e != ClipRunes(OneLine(s), n) {
			t.Fatalf("Excerpt(%q, %d) = %q, not the clipped one line %q", s, n, e, ClipRunes(OneLine(s), n))
		}
	})
}
