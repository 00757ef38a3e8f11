package ghclient

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tailString(t *testing.T, log string, maxBytes int, midLine bool) tailText {
	t.Helper()
	out, err := readTail(t.Context(), strings.NewReader(log), maxBytes, midLine)
	require.NoError(t, err)
	return out
}

func TestLogCleaning(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "a\nb\n", "a\nb"},
		{"Actions timestamps", "2026-11-21T12:00:00.1234567Z ##[group]Run go test\n2026-11-21T12:00:01.0000000Z ok\n", "##[group]Run go test\nok"},
		{"timestamp without a fraction", "2026-11-21T12:00:00Z hello\n", "hello"},
		{"a timestamp alone on a line", "2026-11-21T12:00:00.1Z\nnext\n", "\nnext"},
		{"a date that is not a prefix stays", "built on 2026-11-21T12:00:00Z fine\n", "built on 2026-11-21T12:00:00Z fine"},
		{"an almost-timestamp stays", "2026-11-21 12:00 not one\n2026-11-21T12:00:00.123x y\n", "2026-11-21 12:00 not one\n2026-11-21T12:00:00.123x y"},
		{"ANSI colours", "\x1b[31;1mFAIL\x1b[0m: TestX\n", "FAIL: TestX"},
		{"ANSI cursor and erase", "\x1b[2K\x1b[1Gprogress\n", "progress"},
		{"OSC hyperlink", "see \x1b]8;;https://example.com\x07here\x1b]8;;\x1b\\ now\n", "see here now"},
		{"charset escape", "\x1b(Bplain\x1b=x\n", "plainx"},
		{"carriage returns and bells", "10%\r50%\r100%\a\r\n", "10%50%100%"},
		{"a stray ESC before a newline", "oops\x1b\nnext\n", "oops\nnext"},
		{"byte-order mark", "\ufeff2026-11-21T12:00:00.0Z first\n", "first"},
		{"invisible and bidi characters", "ok\u200b\u202egnp.exe\u2066\n\U000E0041tag\n", "okgnp.exe\ntag"},
		{"tabs stay", "a\tb\n", "a\tb"},
		{"no final newline", "2026-11-21T12:00:00.0Z last", "last"},
		{"the log ends inside a timestamp-like prefix", "x\n2026-11", "x\n2026-11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tailString(t, tt.in, 1<<10, false)
			assert.Equal(t, tt.want, got.text)
			assert.False(t, got.truncated)
			assert.Equal(t, int64(len(tt.in)), got.raw)
		})
	}
}

// However the stream is chunked, the text is the same.
func TestLogCleaningIgnoresChunking(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		b.WriteString("2026-11-21T12:00:00.1234567Z ")
		switch i % 4 {
		case 0:
			b.WriteString("\x1b[32mok\x1b[0m step")
		case 1:
			b.WriteString("\x1b]8;;u\x07link\x1b]8;;\x1b\\ text")
		case 2:
			b.WriteString("résumé ✓ 日本")
		default:
			b.WriteString("plain\r")
		}
		b.WriteString("\n")
	}
	log := b.String()
	for _, max := range []int{1 << 20, 700, 64} {
		want := tailString(t, log, max, false)
		rng := rand.New(rand.NewPCG(1, uint64(max)))
		for range 30 {
			cl := newLogCleaner(max, false)
			for rest := []byte(log); len(rest) > 0; {
				n := 1 + rng.IntN(min(len(rest), 40))
				cl.write(rest[:n])
				rest = rest[n:]
			}
			text, cut := cl.tail()
			assert.Equal(t, want.text, text, "max %d", max)
			assert.Equal(t, want.truncated, cut)
		}
	}
}

func TestLogTailCutsAtALineBoundary(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		b.WriteString("2026-11-21T12:00:00.1234567Z line ")
		b.WriteString(strings.Repeat("x", i%17))
		b.WriteString("\n")
	}
	log := b.String()
	last := "line " + strings.Repeat("x", 999%17)
	for _, max := range []int{100, 1000, 4096} {
		got := tailString(t, log, max, false)
		assert.True(t, got.truncated)
		assert.LessOrEqual(t, len(got.text), max)
		for _, line := range strings.Split(got.text, "\n") {
			assert.True(t, strings.HasPrefix(line, "line "), "whole lines only: %q", line)
		}
		assert.True(t, strings.HasSuffix(got.text, "\n"+last), "the end is kept: %q", got.text)
	}
	// When not even the last line fits, its end is better than nothing.
	for _, max := range []int{1, 10} {
		got := tailString(t, log, max, false)
		assert.True(t, got.truncated)
		assert.Len(t, got.text, max)
		assert.True(t, strings.HasSuffix(last, got.text))
	}
	// Exactly at a boundary: nothing is lost.
	got := tailString(t, "aaaa\nbbbb\ncccc\n", 10, false)
	assert.Equal(t, "bbbb\ncccc", got.text)
	assert.True(t, got.truncated)
}

func TestLogTailOfOneEndlessLine(t *testing.T) {
	log := strings.Repeat("é", 5000) + "END"
	got := tailString(t, log, 100, false)
	assert.True(t, got.truncated)
	assert.True(t, strings.HasSuffix(got.text, "END"))
	assert.True(t, utf8.ValidString(got.text), "no broken character at the cut")
	assert.LessOrEqual(t, len(got.text), 100)
}

func TestLogTailFromTheMiddle(t *testing.T) {
	got := tailString(t, "rtial line\n2026-11-21T12:00:00.1Z whole\n", 100, true)
	assert.Equal(t, "whole", got.text)
	assert.True(t, got.truncated)
}

func TestRing(t *testing.T) {
	r := ring{buf: make([]byte, 5)}
	r.write([]byte("ab"))
	assert.Equal(t, "ab", string(r.bytes()))
	r.write([]byte("cde"))
	assert.Equal(t, "abcde", string(r.bytes()))
	r.write([]byte("f"))
	assert.Equal(t, "bcdef", string(r.bytes()))
	r.write([]byte("ghijklm"))
	assert.Equal(t, "ijklm", string(r.bytes()))
	r.write([]byte("no"))
	assert.Equal(t, "klmno", string(r.bytes()))
	assert.Equal(t, int64(15), r.total)
}

func BenchmarkLogTail(b *testing.B) {
	line := "2026-11-21T12:00:00.1234567Z \x1b[32mok\x1b[0m  github.com/prmonitor/prmonitor/prstatus/ghclient  0.301s\n"
	log := bytes.Repeat([]byte(line), (8<<20)/len(line))
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := readTail(b.Context(), bytes.NewReader(log), 12<<10, false); err != nil {
			b.Fatal(err)
		}
	}
}
